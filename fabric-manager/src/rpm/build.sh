#!/usr/bin/env bash
# Builds fabric-manager-VERSION-1.noarch.rpm into TARGET (docs/operations.md, "Install the RPM"): lays out the files
# of the Debian package in TARGET/rpm/stage and runs rpmbuild on fabric-manager.spec. Run by the Maven build after the
# jar, the manual page and the completion script; skipped with one line where rpmbuild is missing (Debian: apt-get
# install rpm; RHEL: dnf install rpm-build), so a machine without it still builds.
set -euo pipefail
version="${1:?usage: build.sh VERSION MODULE_DIR TARGET}"
module="${2:?usage: build.sh VERSION MODULE_DIR TARGET}"
target="${3:?usage: build.sh VERSION MODULE_DIR TARGET}"
if ! command -v rpmbuild >/dev/null 2>&1; then
  echo "RPM not built: needs rpmbuild (Debian: apt-get install rpm; RHEL: dnf install rpm-build)"
  exit 0
fi
home="$module/.."
top="$target/rpm"
stage="$top/stage"
rm -rf "$top"
mkdir -p "$stage"
opt="$stage/opt/fabric-manager"

install -D -m 755 "$home/bin/fabric-manager" "$opt/bin/fabric-manager"
install -D -m 644 "$target/fabric-manager-all.jar" "$opt/lib/fabric-manager.jar"
install -m 644 "$home/LICENSE" "$home/README.md" "$opt/"
# the documentation as in the .deb: without the plot's generator, and docs/tools/ executable
mkdir -p "$opt/docs"
(cd "$home/docs" && find . -type f ! -path './tools/*' ! -path './img/*.py' -print0 \
  | xargs -0 -I{} install -D -m 644 {} "$opt/docs/{}")
(cd "$home/docs" && find ./tools -type f -print0 | xargs -0 -I{} install -D -m 755 {} "$opt/docs/{}")
plugin=0
if [[ -f "$target/opensm-plugin/libfabricmanager.so" ]]; then
  install -D -m 644 "$target/opensm-plugin/libfabricmanager.so" "$opt/lib/opensm/libfabricmanager.so"
  mkdir -p "$stage/usr/lib64"
  ln -s /opt/fabric-manager/lib/opensm/libfabricmanager.so "$stage/usr/lib64/libfabricmanager.so"
  plugin=1
fi
ln -s /etc/fabric-manager "$opt/conf"
mkdir -p "$stage/usr/bin"
ln -s /opt/fabric-manager/bin/fabric-manager "$stage/usr/bin/fabric-manager"

install -D -m 640 "$home/conf/fabric-manager.yaml" "$stage/etc/fabric-manager/fabric-manager.yaml"
for f in logback.xml fabric-manager-alerts.yml fabric-manager-dashboard.json opensm.conf.example; do
  install -D -m 644 "$home/conf/$f" "$stage/etc/fabric-manager/$f"
done
install -D -m 644 "$home/conf/fabric-manager.service" "$stage/usr/lib/systemd/system/fabric-manager.service"
install -D -m 644 "$home/conf/fabric-manager.sysusers" "$stage/usr/lib/sysusers.d/fabric-manager.conf"
install -D -m 644 "$target/shell-files/fabric-manager.1.gz" "$stage/usr/share/man/man1/fabric-manager.1.gz"
install -D -m 644 "$target/shell-files/fabric-manager.bash" "$stage/usr/share/bash-completion/completions/fabric-manager"

# rpmbuild's warnings (the absolute symbolic links, as in the .deb) go to its log, shown when it fails
if ! rpmbuild -bb --define "_topdir $top" --define "fm_version ${version//-/\~}" --define "fm_stage $stage" \
    --define "fm_plugin $plugin" --define "_build_id_links none" "$module/src/rpm/fabric-manager.spec" \
    > "$top/rpmbuild.log" 2>&1; then
  cat "$top/rpmbuild.log" >&2
  exit 1
fi
rpm="$(find "$top/RPMS" -name 'fabric-manager-*.noarch.rpm')"
mv "$rpm" "$target/"
echo "RPM built: $target/$(basename "$rpm")"

/**
 * What was built: the release version and source commit of this copy of fabric-manager, read from
 * a resource the build writes, for {@code --version}, the daemon's start-up line, its status and its
 * {@code fabric_build_info} metric.
 */
package org.fabricmanager.release;

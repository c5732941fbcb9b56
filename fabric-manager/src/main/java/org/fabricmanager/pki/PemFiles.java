package org.fabricmanager.pki;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.StringReader;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads and writes the PEM files of the fabric's PKI. Certificates are parsed by the JDK; private keys
 * are PKCS#8 ({@code BEGIN PRIVATE KEY}; SEC1 {@code BEGIN EC PRIVATE KEY} is read too) and are written
 * with mode 0600 from the first byte. Every read is bounded (a PEM file above {@value #MAX_PEM_BYTES}
 * bytes is refused before it is read), and a private key that other users may read is refused when
 * loaded for use, naming the file and the {@code chmod} that fixes it.
 */
public final class PemFiles {
    /** Largest PEM file read: a bundle of a few dozen certificates. */
    public static final int MAX_PEM_BYTES = 1 << 20;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private PemFiles() {
    }

    /**
     * Reads every certificate of a PEM file (a chain or a trust bundle), in file order.
     *
     * @throws PkiException naming the file when it is missing, too large, or holds no certificate
     */
    public static List<X509Certificate> readCertificates(Path file) {
        byte[] bytes = readBounded(file);
        List<X509Certificate> certificates = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Certificate c : factory.generateCertificates(new ByteArrayInputStream(bytes))) {
                certificates.add((X509Certificate) c);
            }
        } catch (CertificateException e) {
            throw new PkiException(file + ": not a PEM certificate file: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new PkiException(file + ": no certificate in it");
        }
        return certificates;
    }

    /** Reads the one certificate of a file. */
    public static X509Certificate readCertificate(Path file) {
        return readCertificates(file).get(0);
    }

    /**
     * Reads an unencrypted private key.
     *
     * @param requirePrivate refuse a key file that its group or other users may read
     * @throws PkiException naming the file
     */
    public static PrivateKey readPrivateKey(Path file, boolean requirePrivate) {
        if (requirePrivate) {
            checkOwnerOnly(file);
        }
        String text = new String(readBounded(file), StandardCharsets.US_ASCII);
        Object object;
        try (PEMParser parser = new PEMParser(new StringReader(text))) {
            object = parser.readObject();
        } catch (IOException | RuntimeException e) {
            throw new PkiException(file + ": not a PEM private key: " + e.getMessage(), e);
        }
        PrivateKeyInfo info;
        if (object instanceof PrivateKeyInfo p) {
            info = p;
        } else if (object instanceof PEMKeyPair pair) {
            info = pair.getPrivateKeyInfo();
        } else if (object instanceof PKCS8EncryptedPrivateKeyInfo) {
            throw new PkiException(file + ": the private key is encrypted; fabric-manager reads unencrypted PKCS#8 keys "
                    + "protected by file permissions (0600)");
        } else {
            throw new PkiException(file + ": no private key in it (expected BEGIN PRIVATE KEY)");
        }
        try {
            String oid = info.getPrivateKeyAlgorithm().getAlgorithm().getId();
            String algorithm = switch (oid) {
                case "1.2.840.10045.2.1" -> "EC";
                case "1.2.840.113549.1.1.1" -> "RSA";
                case "1.3.101.112" -> "Ed25519";
                default -> throw new PkiException(file + ": private key of unsupported algorithm " + oid
                        + " (fabric-manager makes ECDSA P-256 and Ed25519 keys and reads RSA keys too)");
            };
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
        } catch (GeneralSecurityException | IOException e) {
            throw new PkiException(file + ": unusable private key: " + e.getMessage(), e);
        }
    }

    /** Refuses a file whose group or other users have any permission on it (POSIX file systems only). */
    public static void checkOwnerOnly(Path file) {
        checkOwnerOnly(file, "this private key");
    }

    /**
     * As {@link #checkOwnerOnly(Path)}, naming the secret in the message ({@code what}, e.g. "the admin token").
     *
     * @throws PkiException naming the file, its mode and the chmod that fixes it
     */
    public static void checkOwnerOnly(Path file, String what) {
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (NoSuchFileException e) {
            throw new PkiException(file + ": no such file");
        } catch (IOException e) {
            throw new PkiException(file + ": cannot read its permissions: " + e.getMessage(), e);
        }
        for (PosixFilePermission p : permissions) {
            if (!p.name().startsWith("OWNER")) {
                throw new PkiException(file + ": mode " + PosixFilePermissions.toString(permissions)
                        + " lets other users read " + what + "; run 'chmod 600 " + file + "'");
            }
        }
    }

    /** Writes certificates as PEM (mode 0644), replacing the file atomically. */
    public static void writeCertificates(Path file, List<X509Certificate> certificates) {
        write(file, false, w -> {
            for (X509Certificate c : certificates) {
                w.writeObject(c);
            }
        });
    }

    /** Writes a private key as unencrypted PKCS#8 PEM, mode 0600 from creation, replacing the file atomically. */
    public static void writePrivateKey(Path file, PrivateKey key) {
        write(file, true, w -> w.writeObject(new JcaPKCS8Generator(key, null)));
    }

    private interface PemBody {
        void writeTo(JcaPEMWriter writer) throws IOException;
    }

    private static void write(Path file, boolean secret, PemBody body) {
        Path dir = file.toAbsolutePath().getParent();
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        FileAttribute<?>[] attributes = posix
                ? new FileAttribute<?>[]{PosixFilePermissions.asFileAttribute(secret ? OWNER_ONLY
                        : PosixFilePermissions.fromString("rw-r--r--"))}
                : new FileAttribute<?>[0];
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp", attributes);
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                Writer out = new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.US_ASCII);
                JcaPEMWriter pem = new JcaPEMWriter(out);
                body.writeTo(pem);
                pem.flush();
                channel.force(true);
            }
            if (posix && !secret) {
                // createTempFile's mode is filtered by the umask; a certificate is public
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                if (tmp != null) {
                    Files.deleteIfExists(tmp);
                }
            } catch (IOException ignored) {
                // the write failed already; a stray temporary file is the lesser problem
            }
            throw new PkiException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    private static byte[] readBounded(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_PEM_BYTES + 1);
            if (bytes.length > MAX_PEM_BYTES) {
                throw new PkiException(file + ": larger than " + MAX_PEM_BYTES + " bytes; not a PEM file of fabric-manager");
            }
            return bytes;
        } catch (NoSuchFileException e) {
            throw new PkiException(file + ": no such file");
        } catch (IOException e) {
            throw new PkiException(file + ": cannot read: " + e.getMessage(), e);
        }
    }
}

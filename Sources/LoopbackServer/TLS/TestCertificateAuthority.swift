import Foundation
import NetKitDigest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throw-away certificate authority for TLS tests on 127.0.0.1, made at run time with `openssl`.
///
/// `init()` creates a fresh temporary folder (mode 0700) and, with `/usr/bin/openssl` (OpenSSL 3.0 or later) run as a
/// child process, fills it with EC P-256 keys and certificates, valid for 7 days from now:
///
/// - a CA (`CN=NetKit Test CA`);
/// - a server certificate it issues for `127.0.0.1` and `localhost` (subjectAltName `IP:127.0.0.1, DNS:localhost`,
///   extendedKeyUsage `serverAuth`), as ``NginxTLSServer`` serves it;
/// - a client certificate it issues (`CN=NetKit Test Client`, extendedKeyUsage `clientAuth`), also as PKCS#12;
/// - an unrelated "unknown" CA and a client certificate that one issues, for the negative tests: a client that
///   trusts only the unknown CA must refuse the server, and a server that trusts only this CA must refuse the
///   unknown CA's client.
///
/// Nothing is written outside the folder, and no key exists anywhere else: tests never check keys in.
/// ``remove()`` deletes the folder; call it when done (the value cannot know when its last copy goes away).
package struct TestCertificateAuthority: Sendable {
    /// The temporary folder holding every file below.
    package let directory: URL

    /// The CA's certificate (PEM): what a client trusts.
    package let caCertificatePEM: String
    /// The path of ``caCertificatePEM`` (for `curl --cacert` and nginx's `ssl_client_certificate`).
    package let caCertificatePath: String
    /// The pin of the CA's key: the base64 SHA-256 of its DER SubjectPublicKeyInfo.
    package let caSPKIPin: String

    /// The server's certificate (PEM), issued by the CA for `127.0.0.1` and `localhost`.
    package let serverCertificatePEM: String
    /// The server's private key (PKCS#8 PEM).
    package let serverKeyPEM: String
    /// The path of ``serverCertificatePEM`` (nginx's `ssl_certificate`).
    package let serverCertificatePath: String
    /// The path of ``serverKeyPEM`` (nginx's `ssl_certificate_key`).
    package let serverKeyPath: String
    /// The pin of the server's key: the base64 SHA-256 of its DER SubjectPublicKeyInfo, what `pin-sha256` and
    /// `curl --pinnedpubkey sha256//…` take.
    package let serverSPKIPin: String

    /// The client's certificate (PEM), issued by the CA for client authentication.
    package let clientCertificatePEM: String
    /// The client's private key (PKCS#8 PEM).
    package let clientKeyPEM: String
    /// The path of ``clientCertificatePEM`` (`curl --cert`).
    package let clientCertificatePath: String
    /// The path of ``clientKeyPEM`` (`curl --key`).
    package let clientKeyPath: String
    /// The client's certificate and key as PKCS#12, encrypted with ``clientPKCS12Password`` (what
    /// `SecPKCS12Import` reads on Apple platforms).
    package let clientPKCS12: Data
    /// The path of ``clientPKCS12``.
    package let clientPKCS12Path: String
    /// The subject of the client certificate, as nginx's `$ssl_client_s_dn` shows it.
    package let clientSubject = "CN=NetKit Test Client"

    /// The unrelated CA's certificate (PEM): trusting only it, a client must refuse the server.
    package let unknownCACertificatePEM: String
    /// The path of ``unknownCACertificatePEM``.
    package let unknownCACertificatePath: String
    /// The pin of the unknown CA's key.
    package let unknownCASPKIPin: String
    /// A client certificate (PEM) issued by the unknown CA: a server that trusts only the CA must refuse it.
    package let unknownClientCertificatePEM: String
    /// The private key (PKCS#8 PEM) of ``unknownClientCertificatePEM``.
    package let unknownClientKeyPEM: String
    /// The path of ``unknownClientCertificatePEM``.
    package let unknownClientCertificatePath: String
    /// The path of ``unknownClientKeyPEM``.
    package let unknownClientKeyPath: String

    /// The password of ``clientPKCS12``.
    package static let clientPKCS12Password = "netkit-test"

    /// Where `openssl` is, or `nil` when it is not installed.
    package static var opensslPath: String? {
        let standard = "/usr/bin/openssl"
        if FileManager.default.isExecutableFile(atPath: standard) { return standard }
        return HarnessProcess.executable(named: "openssl")
    }

    /// Whether `openssl` is installed, for tests to skip (with ``installHint``) when it is not.
    package static var isAvailable: Bool { opensslPath != nil }

    /// How to install what this type needs.
    package static let installHint = "install OpenSSL's command-line tool: apt-get install -y openssl"

    /// Creates the folder, the two CAs and the certificates they issue.
    /// - Throws: ``TLSHarnessError/toolMissing(tool:installHint:)`` without `openssl`,
    ///   ``TLSHarnessError/commandFailed(command:status:output:)`` when one of its commands fails,
    ///   ``TLSHarnessError/fileSystem(operation:path:reason:)``. Nothing is left behind when it throws.
    package init() throws(TLSHarnessError) {
        guard let openssl = Self.opensslPath else {
            throw .toolMissing(tool: "openssl", installHint: Self.installHint)
        }
        let directory = try Self.makePrivateDirectory(prefix: "netkit-tls-ca")
        do throws(TLSHarnessError) {
            let issuer = Issuer(openssl: openssl, directory: directory)
            let ca = try issuer.makeAuthority(name: "ca", commonName: "NetKit Test CA")
            let server = try issuer.issue(
                name: "server", commonName: "127.0.0.1", by: ca,
                extensions: ["extendedKeyUsage=serverAuth", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
            let client = try issuer.issue(
                name: "client", commonName: "NetKit Test Client", by: ca, extensions: ["extendedKeyUsage=clientAuth"])
            let unknown = try issuer.makeAuthority(name: "unknown-ca", commonName: "NetKit Unknown CA")
            let unknownClient = try issuer.issue(
                name: "unknown-client", commonName: "NetKit Unknown Client", by: unknown,
                extensions: ["extendedKeyUsage=clientAuth"])
            let pkcs12Path = directory.appending(path: "client.p12").path
            try issuer.openssl([
                "pkcs12", "-export", "-in", client.certificatePath, "-inkey", client.keyPath, "-out", pkcs12Path,
                "-name", "NetKit Test Client", "-passout", "pass:\(Self.clientPKCS12Password)",
            ])

            self.directory = directory
            caCertificatePEM = try Self.read(ca.certificatePath)
            caCertificatePath = ca.certificatePath
            caSPKIPin = try Self.spkiPin(ofCertificateAt: ca.certificatePath)
            serverCertificatePEM = try Self.read(server.certificatePath)
            serverKeyPEM = try Self.read(server.keyPath)
            serverCertificatePath = server.certificatePath
            serverKeyPath = server.keyPath
            serverSPKIPin = try Self.spkiPin(ofCertificateAt: server.certificatePath)
            clientCertificatePEM = try Self.read(client.certificatePath)
            clientKeyPEM = try Self.read(client.keyPath)
            clientCertificatePath = client.certificatePath
            clientKeyPath = client.keyPath
            clientPKCS12 = try Self.readData(pkcs12Path)
            clientPKCS12Path = pkcs12Path
            unknownCACertificatePEM = try Self.read(unknown.certificatePath)
            unknownCACertificatePath = unknown.certificatePath
            unknownCASPKIPin = try Self.spkiPin(ofCertificateAt: unknown.certificatePath)
            unknownClientCertificatePEM = try Self.read(unknownClient.certificatePath)
            unknownClientKeyPEM = try Self.read(unknownClient.keyPath)
            unknownClientCertificatePath = unknownClient.certificatePath
            unknownClientKeyPath = unknownClient.keyPath
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Deletes the folder and everything in it (keys included). Idempotent; the PEM texts stay usable.
    package func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The CA's certificate in DER, the form `SecCertificateCreateWithData` takes.
    package var caCertificateDER: Data { Self.der(fromPEM: caCertificatePEM) ?? Data() }

    /// The server's certificate in DER.
    package var serverCertificateDER: Data { Self.der(fromPEM: serverCertificatePEM) ?? Data() }

    /// The unknown CA's certificate in DER.
    package var unknownCACertificateDER: Data { Self.der(fromPEM: unknownCACertificatePEM) ?? Data() }

    /// The bytes of the first PEM block of `pem` (between its `-----BEGIN` and `-----END` lines), or `nil` when it
    /// has none or its base64 is broken.
    package static func der(fromPEM pem: String) -> Data? {
        var body = ""
        var inside = false
        for line in pem.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("-----BEGIN ") {
                inside = true
            } else if line.hasPrefix("-----END ") {
                return inside ? Data(base64Encoded: body) : nil
            } else if inside {
                body += line.trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The pin of a DER SubjectPublicKeyInfo: its SHA-256, in base64.
    package static func spkiPin(ofPublicKeyDER der: Data) -> String {
        Data(SHA256.hash(der)).base64EncodedString()
    }

    // MARK: - Files

    /// Makes a new folder only this user can enter, under the temporary directory.
    ///
    /// `mkdtemp` rather than a UUID name with `createDirectory`: it creates the folder with mode 0700 in one step,
    /// so no key is ever readable by others, not even for a moment.
    static func makePrivateDirectory(prefix: String) throws(TLSHarnessError) -> URL {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        // The buffer is never empty: it holds at least the template's terminating NUL.
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        let code = errno
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard made else {
            throw .fileSystem(operation: "create a folder", path: path, reason: String(cString: strerror(code)))
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Writes `text` to `path`, readable by this user only.
    static func write(_ text: String, to path: String) throws(TLSHarnessError) {
        let created = FileManager.default.createFile(
            atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        guard created else { throw .fileSystem(operation: "write", path: path, reason: "createFile failed") }
    }

    static func read(_ path: String) throws(TLSHarnessError) -> String {
        String(decoding: try readData(path), as: UTF8.self)
    }

    static func readData(_ path: String) throws(TLSHarnessError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .fileSystem(operation: "read", path: path, reason: "no such file, or not readable")
        }
        return data
    }
}

extension TestCertificateAuthority {
    /// The pin of the key in the PEM certificate at `path`.
    private static func spkiPin(ofCertificateAt path: String) throws(TLSHarnessError) -> String {
        let pem = try read(path)
        guard let der = der(fromPEM: pem), let spki = subjectPublicKeyInfo(ofCertificateDER: der) else {
            throw .fileSystem(operation: "find the public key in", path: path, reason: "not a DER X.509 certificate")
        }
        return spkiPin(ofPublicKeyDER: spki)
    }

    /// The DER SubjectPublicKeyInfo (the whole element, tag and length included) of a DER X.509 certificate.
    ///
    /// Read here rather than with two more `openssl` runs per pin: a certificate is
    /// `SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, validity,
    /// subject, subjectPublicKeyInfo, … }, … }` (RFC 5280 §4.1), so the key is the sixth element after the optional
    /// version. The tests check the result against `openssl pkey -pubin -outform der | openssl dgst -sha256`.
    package static func subjectPublicKeyInfo(ofCertificateDER der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard let certificate = element(in: bytes, at: 0), certificate.tag == 0x30,
            let tbs = element(in: bytes, at: certificate.content.lowerBound), tbs.tag == 0x30
        else { return nil }
        var offset = tbs.content.lowerBound
        var index = 0
        // At most the version and six elements are read; each step moves past one element or returns.
        while offset < tbs.content.upperBound, index < 7 {
            guard let field = element(in: bytes, at: offset), field.whole.upperBound <= tbs.content.upperBound
            else { return nil }
            if !(index == 0 && field.tag == 0xA0) {
                index += 1
                if index == 6 { return field.tag == 0x30 ? Data(bytes[field.whole]) : nil }
            }
            offset = field.whole.upperBound
        }
        return nil
    }

    /// The DER element starting at `offset`: its tag, its whole range and its content's range; `nil` if it does
    /// not fit in `bytes` or uses a form DER forbids.
    private static func element(
        in bytes: [UInt8], at offset: Int
    ) -> (tag: UInt8, whole: Range<Int>, content: Range<Int>)? {
        guard offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        var length = Int(bytes[offset + 1])
        var contentStart = offset + 2
        if length & 0x80 != 0 {
            // Long form: the low bits count the length bytes; four are plenty for anything a test makes.
            let count = length & 0x7F
            guard (1...4).contains(count), contentStart + count <= bytes.count else { return nil }
            length = bytes[contentStart..<(contentStart + count)].reduce(0) { $0 << 8 | Int($1) }
            contentStart += count
        }
        guard contentStart + length <= bytes.count else { return nil }
        return (tag, offset..<(contentStart + length), contentStart..<(contentStart + length))
    }

    /// The files of one key pair and its certificate.
    private struct IssuedCertificate {
        let keyPath: String
        let certificatePath: String
    }

    /// Runs the `openssl` commands that make keys and certificates, in one folder.
    ///
    /// Each certificate, key included, is one `openssl req -x509` run (OpenSSL 3's `req` signs with `-CA`): the
    /// authority is made once per test, and every run of `openssl` costs tens of milliseconds on a busy machine.
    private struct Issuer {
        let openssl: String
        let directory: URL

        /// Runs `openssl` with `arguments`; its failure is thrown with what it printed.
        func openssl(_ arguments: [String]) throws(TLSHarnessError) {
            // Bounded generously: each command takes milliseconds, but the machine may be busy with a CI run.
            let result = try HarnessProcess.run(openssl, arguments, timeout: .seconds(120))
            guard result.succeeded else {
                throw .commandFailed(
                    command: "openssl " + arguments.joined(separator: " "), status: result.status,
                    output: result.errorText + result.outputText + " (the harness needs OpenSSL 3.0 or later)")
            }
        }

        private func path(_ file: String) -> String {
            directory.appending(path: file).path
        }

        /// A new EC P-256 key in `<name>.key` and a certificate for it in `<name>.pem`, valid for 7 days: signed
        /// by `issuer`, or by itself when there is none.
        private func certificate(
            name: String, commonName: String, issuer: IssuedCertificate?, extensions: [String]
        ) throws(TLSHarnessError) -> IssuedCertificate {
            let made = IssuedCertificate(keyPath: path("\(name).key"), certificatePath: path("\(name).pem"))
            var arguments = [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-noenc",
                "-keyout", made.keyPath, "-out", made.certificatePath, "-subj", "/CN=\(commonName)",
                "-days", "7", "-sha256", "-set_serial", Self.serial(),
            ]
            if let issuer { arguments += ["-CA", issuer.certificatePath, "-CAkey", issuer.keyPath] }
            // Each -addext replaces the extension of that name that the system's openssl.cnf would add.
            for line in extensions { arguments += ["-addext", line] }
            try openssl(arguments)
            return made
        }

        /// A self-signed CA certificate and its key.
        func makeAuthority(name: String, commonName: String) throws(TLSHarnessError) -> IssuedCertificate {
            try certificate(
                name: name, commonName: commonName, issuer: nil,
                extensions: [
                    "basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign",
                    "subjectKeyIdentifier=hash",
                ])
        }

        /// A leaf certificate for `commonName` with `extensions` (as `-addext` takes them), issued by
        /// `authority`, and its key.
        func issue(
            name: String, commonName: String, by authority: IssuedCertificate, extensions: [String]
        ) throws(TLSHarnessError) -> IssuedCertificate {
            // Only digitalSignature: an EC key signs the handshake and never encrypts a key.
            try certificate(
                name: name, commonName: commonName, issuer: authority,
                extensions: ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature"] + extensions)
        }

        /// A random positive 63-bit serial number, so no two certificates of a run (or of two runs) share one.
        private static func serial() -> String {
            "0x" + String(UInt64.random(in: 1...(UInt64.max >> 1)), radix: 16)
        }
    }
}

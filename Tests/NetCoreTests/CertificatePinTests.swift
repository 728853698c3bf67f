import Foundation
import LoopbackServer
import NetCore
import NetKitDigest
import Testing

/// Certificate pins as OkHttp's CertificatePinner has them: SPKI SHA-256 in base64, per host pattern, with a
/// backup; the DER reader that finds the SubjectPublicKeyInfo, checked against openssl on certificates made for the
/// run, and against hostile bytes.
@Suite("Certificate pins")
struct CertificatePinTests {
    /// Two valid hashes to build pins from, neither of any certificate here.
    static let spare = [
        Data(repeating: 0xA1, count: 32).base64EncodedString(),
        Data(repeating: 0xB2, count: 32).base64EncodedString(),
    ]

    static func pin(_ host: String, _ hashes: [String] = spare) throws -> CertificatePin {
        try CertificatePin(host: host, sha256: hashes)
    }

    /// The error creating a pin fails with.
    static func settingError(host: String, sha256: [String] = spare) throws -> ConnectionSettingError {
        try #require(throws: ConnectionSettingError.self) { try CertificatePin(host: host, sha256: sha256) }
    }

    // MARK: Host patterns

    @Test(
        "*.example.com takes exactly one more label; **.example.com any number, zero included",
        arguments: [
            ("*.example.com", "a.example.com", true),
            ("*.example.com", "example.com", false),
            ("*.example.com", "a.b.example.com", false),
            ("*.example.com", "aexample.com", false),
            ("*.example.com", "a.example.org", false),
            ("**.example.com", "a.example.com", true),
            ("**.example.com", "example.com", true),
            ("**.example.com", "a.b.example.com", true),
            ("**.example.com", "aexample.com", false),
            ("**.example.com", "xample.com", false),
            ("api.example.com", "api.example.com", true),
            ("api.example.com", "a.api.example.com", false),
            ("api.example.com", "example.com", false),
        ])
    func hostPatterns(pattern: String, host: String, matches: Bool) throws {
        #expect(try Self.pin(pattern).matches(host: host) == matches)
    }

    @Test("hosts and patterns compare lower-cased, a trailing dot ignored, IPv6 with or without brackets")
    func hostNormalization() throws {
        let exact = try Self.pin("API.Example.COM.")
        #expect(exact.host == "api.example.com")
        #expect(exact.matches(host: "api.example.com"))
        #expect(exact.matches(host: "Api.EXAMPLE.com."))
        let wildcard = try Self.pin("*.Example.com")
        #expect(wildcard.matches(host: "WWW.EXAMPLE.COM."))
        let address = try Self.pin("[2001:DB8::1]")
        #expect(address.host == "2001:db8::1")
        #expect(address.matches(host: "[2001:db8::1]"))
        #expect(address.matches(host: "2001:db8::1"))
        #expect(address.matches(host: "2001:0db8:0:0::0001"), "one address, however written")
        #expect(!address.matches(host: "2001:db8::2"))
        let v4 = try Self.pin("192.0.2.1")
        #expect(v4.matches(host: "192.0.2.1"))
        #expect(!v4.matches(host: "192.0.2.10"))
        #expect(!v4.matches(host: "a.192.0.2.1"))
    }

    @Test(
        "a host pattern that is empty, has a misplaced wildcard, or is an address with one, is refused",
        arguments: [
            ("", "the host pattern is empty"),
            (".", "the host pattern is empty"),
            ("a.*.example.com", "a wildcard may only be the whole first label"),
            ("*a.example.com", "a wildcard may only be the whole first label"),
            ("api.example.*", "a wildcard may only be the whole first label"),
            ("***.example.com", "a wildcard may only be the whole first label"),
            ("*", "a wildcard may only be the whole first label"),
            ("*.", "a wildcard may only be the whole first label"),
            ("**.", "a wildcard may only be the whole first label"),
            ("*.10.0.0.1", "an IP address cannot take a wildcard"),
            ("**.0.1", "an IP address cannot take a wildcard"),
            ("*.[::1]", "an IP address cannot take a wildcard"),
            ("example.com:443", "holds a colon but is not an IPv6 address"),
            ("a..example.com", "empty label"),
            (".example.com", "empty label"),
            ("https://example.com", "a slash"),
            ("exa mple.com", "a space"),
        ])
    func badHostPatterns(host: String, reason: String) throws {
        let error = try Self.settingError(host: host)
        #expect(error.reason.contains(reason), "\(error)")
        #expect(error.setting == (host.isEmpty ? "certificate pin for an empty host" : "certificate pin for \(host)"))
    }

    // MARK: Hashes

    @Test("a backup pin is required: one hash, or the same hash twice in any spelling, is refused")
    func backupPinRequired() throws {
        let one = Self.spare[0]
        let unpadded = String(one.dropLast())
        for hashes in [[], [one], [one, one], [one, "sha256/" + one], [unpadded, one]] {
            let error = try Self.settingError(host: "api.example.com", sha256: hashes)
            #expect(error.setting == "certificate pin for api.example.com")
            #expect(error.reason.hasPrefix("a backup pin is required: "), "\(hashes)")
            #expect(error.reason.hasSuffix("a key rotation or a lost key would otherwise lock every client out"))
        }
    }

    @Test("a hash that is not base64, or not of 32 bytes, is refused, saying which")
    func badHashes() throws {
        let notBase64 = try Self.settingError(host: "api.example.com", sha256: ["not base64!", Self.spare[0]])
        #expect(notBase64.reason.hasPrefix("\"not base64!\" is not base64"))
        let short = Data(repeating: 7, count: 20).base64EncodedString()
        let wrongLength = try Self.settingError(host: "api.example.com", sha256: [Self.spare[0], short])
        #expect(wrongLength.reason.hasPrefix("\"\(short)\" decodes to 20 bytes, not the 32 of a SHA-256 hash"))
        let long = Data(repeating: 7, count: 300).base64EncodedString()
        let tooLong = try Self.settingError(host: "api.example.com", sha256: [Self.spare[0], long])
        #expect(tooLong.reason.contains("decodes to 300 bytes"))
        #expect(!tooLong.reason.contains(long), "a long value is shown cut")
        let hex = SHA256.hex(SHA256.hash(Array("key".utf8)))
        #expect(
            try Self.settingError(host: "api.example.com", sha256: [Self.spare[0], hex]).reason.contains("48 bytes"))
        #expect(throws: ConnectionSettingError.self) {
            try CertificatePin(host: "api.example.com", sha256: [Self.spare[0], "sha1/" + Self.spare[1]])
        }
    }

    @Test(
        "OkHttp's sha256/ prefix, a missing padding and blanks around are accepted; hashes are kept canonical, once each"
    )
    func canonicalHashes() throws {
        let pin = try CertificatePin(
            host: "api.example.com",
            sha256: ["sha256/" + Self.spare[0], String(Self.spare[1].dropLast()), " \(Self.spare[0])\n"])
        #expect(pin.sha256 == Self.spare)
        #expect(pin.description == "api.example.com: sha256/\(Self.spare[0]), sha256/\(Self.spare[1])")
    }

    // MARK: Checking a chain (certificates built here, no openssl)

    @Test("the reader finds the SubjectPublicKeyInfo and the last common name, with or without a version field")
    func syntheticCertificates() throws {
        for version in [true, false] {
            let made = SyntheticCertificate(commonName: "api.example.com", key: [1, 2, 3, 4], version: version)
            let info = try SubjectPublicKeyInfo(certificate: made.der)
            #expect(info.der == made.spki)
            #expect(info.subjectCommonName == "api.example.com")
            #expect(try CertificatePinning.spkiSHA256(ofCertificate: made.der) == made.pin)
        }
        let two = SyntheticCertificate(
            subject: DER.name([(DER.commonName, DER.utf8("Example")), (DER.commonName, DER.utf8("leaf"))]))
        #expect(try SubjectPublicKeyInfo(certificate: two.der).subjectCommonName == "leaf")
        let none = SyntheticCertificate(subject: DER.name([([0x55, 0x04, 0x0A], DER.utf8("Example Org"))]))
        #expect(try SubjectPublicKeyInfo(certificate: none.der).subjectCommonName == nil)
    }

    @Test("common names in BMPString and TeletexString decode; control characters are shown as ?")
    func commonNameEncodings() throws {
        let bmp = DER.tlv(0x1E, Array("Zürich ☃".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        #expect(try Self.commonName(bmp) == "Zürich ☃")
        #expect(try Self.commonName(DER.tlv(0x14, [0x5A, 0xFC, 0x72])) == "Zür")
        #expect(try Self.commonName(DER.utf8("evil\ncom\u{1B}[2J\u{202E}")) == "evil?com?[2J?")
        #expect(try Self.commonName(DER.tlv(0x0C, [0xFF, 0xFE])) == nil, "invalid UTF-8: no name, still a key")
        #expect(try Self.commonName(DER.tlv(0x1E, [0x00])) == nil)
        let long = try #require(try Self.commonName(DER.utf8(String(repeating: "a", count: 5000))))
        #expect(long.count == 256)
    }

    static func commonName(_ value: [UInt8]) throws -> String? {
        let made = SyntheticCertificate(subject: DER.name([(DER.commonName, value)]))
        return try SubjectPublicKeyInfo(certificate: made.der).subjectCommonName
    }

    @Test("a pinned key anywhere in the chain passes; none fails with both lists; an unpinned host is not checked")
    func checkSynthetic() throws {
        let leaf = SyntheticCertificate(commonName: "api.example.com", key: [1])
        let issuer = SyntheticCertificate(commonName: "Example CA", key: [2])
        let chain = [leaf.der, issuer.der]
        let leafPin = try Self.pin("api.example.com", [leaf.pin, Self.spare[0]])
        let issuerPin = try Self.pin("**.example.com", [Self.spare[1], issuer.pin])
        #expect(CertificatePinning.check(host: "api.example.com", chain: chain, pins: [leafPin]) == nil)
        #expect(CertificatePinning.check(host: "api.example.com", chain: chain, pins: [issuerPin]) == nil)
        #expect(CertificatePinning.check(host: "API.example.com.", chain: chain, pins: [leafPin]) == nil)
        // Not pinned: any chain, even none, is this check's business no more.
        #expect(CertificatePinning.check(host: "other.org", chain: [], pins: [leafPin, issuerPin]) == nil)
        #expect(CertificatePinning.check(host: "api.example.com", chain: chain, pins: []) == nil)

        let unpinned = try Self.pin("api.example.com")
        let error = try #require(CertificatePinning.check(host: "api.example.com", chain: chain, pins: [unpinned]))
        #expect(error.host == "api.example.com")
        #expect(error.expected == Self.spare)
        #expect(error.chain == [leaf.pin, issuer.pin])
        #expect(error.commonNames == ["api.example.com", "Example CA"])
        #expect(
            error.description == """
                Certificate pinning failure! api.example.com presented none of its pinned keys.
                  Peer certificate chain:
                    sha256/\(leaf.pin): CN=api.example.com
                    sha256/\(issuer.pin): CN=Example CA
                  Pinned certificates for api.example.com:
                    sha256/\(Self.spare[0])
                    sha256/\(Self.spare[1])
                  If the server's key changed on purpose, update the pins (keep a backup pin); otherwise the server, \
                or something between (a TLS-intercepting proxy), presents another key.
                """)
    }

    @Test("every pin matching the host applies: the union of their hashes, each once")
    func pinsUnion() throws {
        let leaf = SyntheticCertificate(commonName: "api.example.com", key: [9])
        let exact = try Self.pin("api.example.com")
        let wildcard = try Self.pin("*.example.com", [Self.spare[1], leaf.pin])
        let elsewhere = try Self.pin("api.example.org", [leaf.pin, Self.spare[0]])
        #expect(CertificatePinning.check(host: "api.example.com", chain: [leaf.der], pins: [exact, wildcard]) == nil)
        let error = try #require(
            CertificatePinning.check(host: "api.example.com", chain: [leaf.der], pins: [exact, elsewhere]))
        #expect(error.expected == Self.spare)
        let other = SyntheticCertificate(commonName: "api.example.com", key: [10])
        let both = try #require(
            CertificatePinning.check(host: "api.example.com", chain: [other.der], pins: [exact, wildcard]))
        #expect(both.expected == [Self.spare[0], Self.spare[1], leaf.pin])
    }

    @Test("an empty chain, or one of unreadable certificates, fails: it holds no pinned key")
    func unreadableChain() throws {
        let pin = try Self.pin("api.example.com")
        let empty = try #require(CertificatePinning.check(host: "api.example.com", chain: [], pins: [pin]))
        #expect(empty.chain.isEmpty)
        #expect(empty.description.contains("  Peer certificate chain:\n    (no certificate)\n"))
        let leaf = SyntheticCertificate(commonName: nil, key: [3])
        let error = try #require(
            CertificatePinning.check(host: "api.example.com", chain: [[0x30, 0x00], leaf.der, []], pins: [pin]))
        #expect(error.chain == [leaf.pin])
        #expect(error.commonNames == [nil])
        #expect(error.description.contains("\n    sha256/\(leaf.pin)\n"), "no CN, no `: CN=`")
    }

    @Test("the public initializer pairs common names with hashes, whatever their counts")
    func errorInitializer() {
        let error = CertificatePinError(host: "h", expected: ["e"], chain: ["a", "b"], commonNames: ["A", "B", "C"])
        #expect(error.commonNames == ["A", "B"])
        #expect(CertificatePinError(host: "h", expected: ["e"], chain: ["a"]).commonNames == [nil])
    }

    // MARK: Hostile bytes

    @Test("hostile DER throws and never crashes: empty, truncated, huge or indefinite lengths, wrong tags")
    func hostileDER() throws {
        let good = SyntheticCertificate(commonName: "api.example.com", key: Array(repeating: 5, count: 200))
        var cases: [(String, [UInt8])] = [
            ("empty", []),
            ("a tag alone", [0x30]),
            ("an empty sequence", [0x30, 0x00]),
            ("indefinite length", [0x30, 0x80, 0x30, 0x00, 0x00, 0x00]),
            ("a length of 2^32 - 1", [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
            ("a length of five bytes", [0x30, 0x85, 0x00, 0x00, 0x00, 0x00, 0x02, 0x30, 0x00]),
            ("a length of 127 bytes", [0x30, 0xFF] + Array(repeating: 0xFF, count: 127)),
            ("a length cut off", [0x30, 0x82, 0x01]),
            ("a multi-byte tag", [0x3F, 0x81, 0x01, 0x00]),
            ("a set, not a sequence", [0x31] + good.der.dropFirst()),
            ("a byte after the certificate", good.der + [0x00]),
            ("an inner length past the outer end", [0x30, 0x03, 0x30, 0x7F, 0x00]),
            ("the key cut from the certificate", SyntheticCertificate.build(spki: DER.sequence(DER.algorithm))),
            (
                "a key with three parts",
                SyntheticCertificate.build(
                    spki: DER.sequence(DER.algorithm, DER.tlv(0x03, [0]), DER.tlv(0x05, [])))
            ),
            ("a certificate without signature", DER.sequence(DER.sequence())),
        ]
        // The serial number as an OCTET STRING: the reader checks each field's tag on the way to the key.
        cases.append(("a serial of the wrong type", SyntheticCertificate.build(spki: good.spki, serialTag: 0x04)))
        for (name, bytes) in cases {
            #expect(throws: SubjectPublicKeyInfo.Malformed.self, "\(name)") {
                try SubjectPublicKeyInfo(certificate: bytes)
            }
            #expect(throws: (any Error).self, "\(name)") { try CertificatePinning.spkiSHA256(ofCertificate: bytes) }
        }
        let indefinite = try #require(throws: SubjectPublicKeyInfo.Malformed.self) {
            try SubjectPublicKeyInfo(certificate: [0x30, 0x80, 0x00, 0x00])
        }
        #expect(
            indefinite.description == "Not an X.509 certificate in DER: certificate has an indefinite length, "
                + "which DER does not allow")
        Self.expectEveryTruncationThrows(good.der)
    }

    @Test("random bytes (fixed seed) are refused, and so are random bodies behind a valid outer header")
    func randomBytes() {
        var random = SplitMix64(seed: 0x5EED_CE57)
        for round in 0..<3000 {
            var bytes = (0..<random.next(600)).map { _ in UInt8(random.next(256)) }
            if round.isMultiple(of: 2) {
                // An outer SEQUENCE whose length is right, so the reader goes in.
                bytes = DER.tlv(0x30, bytes)
            }
            #expect(throws: SubjectPublicKeyInfo.Malformed.self) { try SubjectPublicKeyInfo(certificate: bytes) }
        }
    }

    @Test("a certificate with random bytes changed reads or throws, never crashes")
    func mutations() throws {
        let good = SyntheticCertificate(commonName: "api.example.com", key: Array(repeating: 5, count: 70))
        Self.mutate(good.der, rounds: 3000, seed: 42)
    }

    /// Every proper prefix of `der` is refused: each leaves some element's length past the end.
    static func expectEveryTruncationThrows(_ der: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try SubjectPublicKeyInfo(certificate: der) }
        for count in 0..<der.count {
            #expect(throws: SubjectPublicKeyInfo.Malformed.self, "\(count) bytes", sourceLocation: sourceLocation) {
                try SubjectPublicKeyInfo(certificate: Array(der.prefix(count)))
            }
        }
    }

    /// Changes one to four bytes of `der` at random, `rounds` times: the result reads or throws.
    static func mutate(_ der: [UInt8], rounds: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var read = 0
        for _ in 0..<rounds {
            var bytes = der
            for _ in 0..<(1 + random.next(4)) {
                bytes[random.next(bytes.count)] = UInt8(random.next(256))
            }
            if let info = try? SubjectPublicKeyInfo(certificate: bytes) {
                read += 1
                // What was read lies within the input.
                #expect(info.der.count <= bytes.count)
            }
        }
        // Most changes hit the key or the signature, which the reader does not look into.
        #expect(read > 0)
    }

    // MARK: Real certificates from openssl

    /// Certificates openssl makes for the run: nothing is committed, so no key lies in the repository.
    @Suite(
        "Certificate pins: certificates made by openssl",
        .enabled(
            if: CertificatePinTests.OpenSSLCertificates.isAvailable,
            "needs /usr/bin/openssl to make certificates at test time: apt-get install openssl"))
    struct OpenSSL {
        @Test("the SPKI SHA-256 of RSA 2048 and EC P-256 certificates is the pin openssl's pipeline prints")
        func pinsAgreeWithOpenSSL() throws {
            let made = try OpenSSLCertificates.shared.get()
            for certificate in made.all {
                #expect(try CertificatePinning.spkiSHA256(ofCertificate: certificate.der) == certificate.pin)
                let info = try SubjectPublicKeyInfo(certificate: certificate.der)
                #expect(info.subjectCommonName == certificate.commonName)
            }
        }

        @Test("a pin on the leaf, the intermediate or the root passes the chain")
        func pinAnywhereInChain() throws {
            let made = try OpenSSLCertificates.shared.get()
            let chain = [made.leafRSA.der, made.intermediate.der, made.root.der]
            for pinned in [made.leafRSA, made.intermediate, made.root] {
                let pin = try CertificatePin(host: "*.example.com", sha256: [CertificatePinTests.spare[0], pinned.pin])
                #expect(CertificatePinning.check(host: "api.example.com", chain: chain, pins: [pin]) == nil)
            }
            let ec = try CertificatePin(
                host: "ec.example.com", sha256: [made.leafEC.pin, CertificatePinTests.spare[0]])
            #expect(CertificatePinning.check(host: "ec.example.com", chain: [made.leafEC.der], pins: [ec]) == nil)
        }

        @Test("a chain without a pinned key fails, listing the chain's pins with their names, and the pinned ones")
        func mismatch() throws {
            let made = try OpenSSLCertificates.shared.get()
            let chain = [made.leafRSA, made.intermediate, made.root]
            // The EC leaf's key and a spare: neither is in the chain.
            let pin = try CertificatePin(
                host: "api.example.com", sha256: [made.leafEC.pin, CertificatePinTests.spare[1]])
            let error = try #require(
                CertificatePinning.check(host: "api.example.com", chain: chain.map(\.der), pins: [pin]))
            #expect(error.chain == chain.map(\.pin))
            #expect(error.expected == [made.leafEC.pin, CertificatePinTests.spare[1]])
            let lines = error.description.split(separator: "\n").map(String.init)
            #expect(lines.first == "Certificate pinning failure! api.example.com presented none of its pinned keys.")
            #expect(
                Array(lines[1...6]) == [
                    "  Peer certificate chain:",
                    "    sha256/\(made.leafRSA.pin): CN=api.example.com",
                    "    sha256/\(made.intermediate.pin): CN=NetKit Test Intermediate CA",
                    "    sha256/\(made.root.pin): CN=NetKit Test Root CA",
                    "  Pinned certificates for api.example.com:",
                    "    sha256/\(made.leafEC.pin)",
                ])
            #expect(error.description.contains("update the pins"))
        }

        @Test("every truncation of a real certificate throws; random changes to one never crash")
        func hostileRealCertificates() throws {
            let made = try OpenSSLCertificates.shared.get()
            for certificate in made.all {
                CertificatePinTests.expectEveryTruncationThrows(certificate.der)
                #expect(throws: SubjectPublicKeyInfo.Malformed.self) {
                    try SubjectPublicKeyInfo(certificate: certificate.der + [0x00])
                }
            }
            CertificatePinTests.mutate(made.leafRSA.der, rounds: 1000, seed: 7)
            CertificatePinTests.mutate(made.leafEC.der, rounds: 1000, seed: 8)
        }
    }
}

extension CertificatePinTests {
    /// A root (RSA 2048, v3), an intermediate it signs (EC P-256, v1, no extensions), an RSA 2048 leaf the
    /// intermediate signs (v1) and an EC P-256 leaf the root signs (v3, with a subjectAltName); each with the pin
    /// openssl's own pipeline prints for it. Made once per test run in a temporary directory, removed after.
    struct OpenSSLCertificates: Sendable {
        struct Certificate: Sendable {
            let der: [UInt8]
            let pin: String
            let commonName: String
        }

        let root: Certificate
        let intermediate: Certificate
        let leafRSA: Certificate
        let leafEC: Certificate
        var all: [Certificate] { [root, intermediate, leafRSA, leafEC] }

        static let openssl = "/usr/bin/openssl"
        static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl) }
        /// RSA key generation takes a while: the suites share one set.
        static let shared = Result { try make() }

        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        static func make() throws -> OpenSSLCertificates {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("netkit-pins-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }

            // Keys made apart from the requests, and extensions from a file: what LibreSSL (macOS's /usr/bin/openssl)
            // accepts as well as OpenSSL.
            try run(openssl, ["genrsa", "-out", "root.key", "2048"], in: directory)
            try run(
                openssl,
                [
                    "req", "-x509", "-new", "-key", "root.key", "-out", "root.pem", "-days", "2", "-subj",
                    "/CN=NetKit Test Root CA",
                ], in: directory)
            try run(
                openssl, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "intermediate.key"],
                in: directory)
            try request("intermediate", subject: "/CN=NetKit Test Intermediate CA", in: directory)
            try sign("intermediate", by: "root", serial: 2, in: directory)
            try run(openssl, ["genrsa", "-out", "leaf-rsa.key", "2048"], in: directory)
            try request("leaf-rsa", subject: "/CN=api.example.com", in: directory)
            try sign("leaf-rsa", by: "intermediate", serial: 3, in: directory)
            try run(
                openssl, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "leaf-ec.key"], in: directory)
            try request("leaf-ec", subject: "/CN=ec.example.com", in: directory)
            try Data("subjectAltName=DNS:ec.example.com\n".utf8).write(
                to: directory.appendingPathComponent("leaf-ec.ext"))
            try sign("leaf-ec", by: "root", serial: 4, in: directory, extra: ["-extfile", "leaf-ec.ext"])

            func certificate(_ name: String, commonName: String) throws -> Certificate {
                try run(
                    openssl, ["x509", "-in", "\(name).pem", "-outform", "der", "-out", "\(name).der"], in: directory)
                let der = try Data(contentsOf: directory.appendingPathComponent("\(name).der"))
                // The pipeline the pins' documentation gives, as a shell runs it.
                let pipeline =
                    "\(openssl) x509 -in \(name).pem -pubkey -noout | \(openssl) pkey -pubin -outform der"
                    + " | \(openssl) dgst -sha256 -binary | base64"
                let pin = try run("/bin/sh", ["-c", pipeline], in: directory)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                guard pin.count == 44 else { throw Failure(description: "openssl printed \"\(pin)\" for \(name)") }
                return Certificate(der: Array(der), pin: pin, commonName: commonName)
            }
            return OpenSSLCertificates(
                root: try certificate("root", commonName: "NetKit Test Root CA"),
                intermediate: try certificate("intermediate", commonName: "NetKit Test Intermediate CA"),
                leafRSA: try certificate("leaf-rsa", commonName: "api.example.com"),
                leafEC: try certificate("leaf-ec", commonName: "ec.example.com"))
        }

        static func request(_ name: String, subject: String, in directory: URL) throws {
            try run(
                openssl, ["req", "-new", "-key", "\(name).key", "-out", "\(name).csr", "-subj", subject], in: directory)
        }

        static func sign(_ name: String, by issuer: String, serial: Int, in directory: URL, extra: [String] = []) throws
        {
            try run(
                openssl,
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
                    "-set_serial",
                    "\(serial)", "-days", "2", "-out", "\(name).pem",
                ] + extra,
                in: directory)
        }

        /// Runs `executable` in `directory`, its input empty; its standard output, or an error with its standard error.
        @discardableResult
        static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> String {
            let output = try HarnessProcess.makePipe()
            let errors = try HarnessProcess.makePipe()
            defer { for end in [output.read, errors.read] { close(end) } }
            let process: ChildProcess
            do {
                defer { for end in [output.write, errors.write] { close(end) } }
                process = try ChildProcess(
                    executable: executable, arguments: arguments, directory: directory.path,
                    standardOutput: output.write, standardError: errors.write)
            }
            // Read both before waiting: a full pipe would block the child. stderr is small (openssl's progress dots).
            let text = FileHandle(fileDescriptor: output.read).readDataToEndOfFile()
            let problems = FileHandle(fileDescriptor: errors.read).readDataToEndOfFile()
            let status = process.waitForExit(timeout: .seconds(60))
            guard status == 0 else {
                throw Failure(
                    description: "\(executable) \(arguments.joined(separator: " ")) exited with "
                        + "\(status.map(String.init) ?? "nothing: still running after 60 s"): "
                        + String(decoding: problems, as: UTF8.self))
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// A certificate's structure in DER, built by hand around a key of the test's choosing, with the pin it must give.
    struct SyntheticCertificate {
        let der: [UInt8]
        let spki: [UInt8]
        var pin: String { Data(SHA256.hash(spki)).base64EncodedString() }

        init(commonName: String? = "api.example.com", key: [UInt8] = [1, 2, 3], version: Bool = true) {
            let subject = DER.name(commonName.map { [(DER.commonName, DER.utf8($0))] } ?? [])
            self.init(subject: subject, key: key, version: version)
        }

        init(subject: [UInt8], key: [UInt8] = [1, 2, 3], version: Bool = true) {
            // id-ecPublicKey; the reader does not look at the algorithm.
            spki = DER.sequence(
                DER.sequence(DER.tlv(0x06, [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])), DER.tlv(0x03, [0] + key))
            der = Self.build(subject: subject, spki: spki, version: version)
        }

        static func build(
            subject: [UInt8] = DER.name([(DER.commonName, DER.utf8("x"))]), spki: [UInt8], version: Bool = true,
            serialTag: UInt8 = 0x02
        ) -> [UInt8] {
            let issuer = DER.name([(DER.commonName, DER.utf8("Example CA"))])
            let validity = DER.sequence(
                DER.tlv(0x17, Array("260101000000Z".utf8)), DER.tlv(0x17, Array("270101000000Z".utf8)))
            let tbs = DER.sequence(
                version ? DER.tlv(0xA0, DER.tlv(0x02, [2])) : [], DER.tlv(serialTag, [0x01, 0x23]), DER.algorithm,
                issuer,
                validity, subject, spki, DER.tlv(0xA3, DER.sequence()))
            return DER.sequence(tbs, DER.algorithm, DER.tlv(0x03, [0, 0xDE, 0xAD]))
        }
    }

    /// The few DER encodings the synthetic certificates need.
    enum DER {
        /// id-at-commonName, 2.5.4.3.
        static let commonName: [UInt8] = [0x55, 0x04, 0x03]
        /// sha256WithRSAEncryption with its NULL parameters.
        static let algorithm = sequence(
            tlv(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]), tlv(0x05, []))

        static func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
            var length: [UInt8] = []
            var count = contents.count
            while count > 0 {
                length.insert(UInt8(count & 0xFF), at: 0)
                count >>= 8
            }
            let header = contents.count < 0x80 ? [UInt8(contents.count)] : [0x80 | UInt8(length.count)] + length
            return [tag] + header + contents
        }

        static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }

        static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }

        /// A Name: one RDN per attribute, in order.
        static func name(_ attributes: [(type: [UInt8], value: [UInt8])]) -> [UInt8] {
            tlv(0x30, attributes.flatMap { tlv(0x31, sequence(tlv(0x06, $0.type), $0.value)) })
        }
    }

    /// SplitMix64: the same seed, the same bytes.
    struct SplitMix64 {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }
}

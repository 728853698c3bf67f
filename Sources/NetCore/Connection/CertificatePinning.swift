#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitDigest

/// Whether a server's certificate chain satisfies the ``CertificatePin``s for its host: pure logic, which every
/// transport calls with the chain its TLS stack validated, so that pinning decides the same everywhere.
///
/// As OkHttp's `CertificatePinner`: a host no pin matches is not pinned; otherwise every pin whose pattern matches
/// applies, and the chain passes when any of its certificates (leaf, intermediate or root) has a
/// SubjectPublicKeyInfo whose SHA-256 is among the hashes they list between them.
package enum CertificatePinning {
    /// The base64 SHA-256 of a certificate's SubjectPublicKeyInfo (DER), the value a ``CertificatePin`` lists.
    /// - Throws: ``SubjectPublicKeyInfo/Malformed`` for bytes that are not an X.509 certificate in DER.
    package static func spkiSHA256(ofCertificate der: [UInt8]) throws -> String {
        try SubjectPublicKeyInfo(certificate: der).sha256
    }

    /// `nil` when `host` has no pin among `pins` or the chain holds a pinned key; otherwise the error. Every pin whose
    /// pattern matches the host applies (as OkHttp: the union of their hashes). `chain` is the server's
    /// certificates in DER, leaf first; one that cannot be read counts as holding no pinned key.
    package static func check(host: String, chain: [[UInt8]], pins: [CertificatePin]) -> CertificatePinError? {
        var expected: [String] = []
        for pin in pins where pin.matches(host: host) {
            for hash in pin.sha256 where !expected.contains(hash) { expected.append(hash) }
        }
        guard !expected.isEmpty else { return nil }

        var hashes: [String] = []
        var commonNames: [String?] = []
        for certificate in chain {
            // The TLS stack has parsed these already; one this reader refuses cannot hold a key it could hash.
            guard let info = try? SubjectPublicKeyInfo(certificate: certificate) else { continue }
            let hash = info.sha256
            if expected.contains(hash) { return nil }
            hashes.append(hash)
            commonNames.append(info.subjectCommonName)
        }
        return CertificatePinError(host: host, expected: expected, chain: hashes, commonNames: commonNames)
    }
}

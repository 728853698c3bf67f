#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitDigest

/// A server whose certificate chain holds none of the keys pinned for its host (`CertificatePin`): the connection
/// is refused, whatever the rest of the chain's validation says. The default ``RetryPolicy`` does not retry it
/// (`NonRetriableError`): the same server would present the same keys.
///
/// Its description, modelled on OkHttp's, lists what the server presented and what was pinned, so the pin to add
/// (after checking the key is the right one) can be copied from it:
/// ```
/// Certificate pinning failure! api.example.com presented none of its pinned keys.
///   Peer certificate chain:
///     sha256/AAAA…=: CN=api.example.com
///     sha256/BBBB…=: CN=Example Issuing CA
///   Pinned certificates for api.example.com:
///     sha256/CCCC…=
///     sha256/DDDD…=
///   If the server's key changed on purpose, update the pins (keep a backup pin); otherwise the server, or
///   something between (a TLS-intercepting proxy), presents another key.
/// ```
package struct CertificatePinError: Error, NonRetriableError, Sendable, Equatable, CustomStringConvertible {
    /// The host the request went to, as the request named it.
    package let host: String
    /// The base64 hashes of the pins that applied (every pin whose pattern matches `host`), without the
    /// `sha256/` prefix.
    package let expected: [String]
    /// The base64 SHA-256 of each SubjectPublicKeyInfo in the chain the server presented, leaf first, without the
    /// `sha256/` prefix. A certificate that could not be read holds no key that could match, and is left out.
    package let chain: [String]
    /// The subject's common name of each certificate in `chain`, at the same index; `nil` where it has none. Only
    /// for the message: what a server calls itself proves nothing.
    package let commonNames: [String?]

    /// An error for `host`, whose server presented the keys `chain` (leaf first, with the subjects' common names in
    /// `commonNames` when known) where one of `expected` was pinned. Hashes are base64, without `sha256/`.
    package init(host: String, expected: [String], chain: [String], commonNames: [String?] = []) {
        self.host = host
        self.expected = expected
        self.chain = chain
        // One per hash, so the description can pair them without checking.
        self.commonNames = (0..<chain.count).map { $0 < commonNames.count ? commonNames[$0] : nil }
    }

    /// OkHttp's "Certificate pinning failure!" message: the host, the chain's keys with their subjects, the pins,
    /// and what to do. It holds only what the server sent in the clear and what the pins say, nothing private.
    package var description: String {
        var lines = ["Certificate pinning failure! \(host) presented none of its pinned keys."]
        lines.append("  Peer certificate chain:")
        if chain.isEmpty { lines.append("    (no certificate)") }
        for (hash, name) in zip(chain, commonNames) {
            lines.append("    sha256/\(hash)" + (name.map { ": CN=\($0)" } ?? ""))
        }
        lines.append("  Pinned certificates for \(host):")
        lines += expected.map { "    sha256/\($0)" }
        lines.append(
            "  If the server's key changed on purpose, update the pins (keep a backup pin); otherwise the server, or "
                + "something between (a TLS-intercepting proxy), presents another key.")
        return lines.joined(separator: "\n")
    }
}

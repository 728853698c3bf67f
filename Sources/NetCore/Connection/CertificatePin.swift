#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitDigest

/// Pins for one host pattern: the server's chain must hold a certificate whose SubjectPublicKeyInfo hashes (SHA-256,
/// base64) to one of these. OkHttp's `CertificatePinner` model.
///
/// A pin is checked on top of the usual validation of the chain (trusted root, name, dates), never instead of it.
/// Pinning the key rather than the certificate lets a certificate be renewed on the same key without a client
/// update; pinning an intermediate's or a root's key as well survives a new leaf key too. Every pin whose pattern
/// matches a host applies: the chain must hold one of the hashes they list between them.
///
/// ```swift
/// let pin = try CertificatePin(host: "api.example.com", sha256: [
///     "sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=",  // the key in use
///     "sha256/YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=",  // the backup, kept offline
/// ])
/// ```
///
/// Hash a server's key with
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
public struct CertificatePin: Sendable, Hashable, CustomStringConvertible {
    /// The host pattern, lower-cased and without a trailing dot: a name (`api.example.com`) or an IP address, which
    /// match only themselves; `*.example.com`, which matches exactly one more label (`a.example.com`, not
    /// `example.com` nor `a.b.example.com`); or `**.example.com`, which matches any number of labels, zero included.
    public let host: String
    /// The base64 SHA-256 hashes of the SubjectPublicKeyInfos this host may present, at least two and distinct, in
    /// the order given, written canonically (padded, without the `sha256/` prefix).
    public let sha256: [String]
    /// The address ``host`` names when it is an IP address: `2001:db8::1` and `2001:db8:0:0::1` are one host, and
    /// are compared as bytes.
    private let address: IPAddress?

    /// Pins `host` (a pattern, see ``host``) to the keys `sha256` names, each a base64 SHA-256 of a
    /// SubjectPublicKeyInfo, with or without OkHttp's `sha256/` prefix.
    ///
    /// - Throws: ``ConnectionSettingError`` for a host pattern that is empty, has a wildcard anywhere but as the
    ///   whole first label, or is an IP address with a wildcard; for a hash that is not base64 of 32 bytes; and for
    ///   fewer than two distinct hashes: the backup pin is what lets a server change its key without locking every
    ///   client out.
    public init(host: String, sha256: [String]) throws {
        let pattern = Self.normalized(host)
        let setting = "certificate pin for \(host.isEmpty ? "an empty host" : host)"
        try Self.validate(pattern: pattern, setting: setting)

        var hashes: [String] = []
        for text in sha256 {
            let hash = try Self.canonicalHash(text, setting: setting)
            if !hashes.contains(hash) { hashes.append(hash) }
        }
        guard hashes.count >= 2 else {
            throw ConnectionSettingError(
                setting: setting,
                reason: "a backup pin is required: give at least two distinct SHA-256 hashes, the key in use and "
                    + "one kept offline for the next certificate (\(hashes.count) given); a key rotation or a lost "
                    + "key would otherwise lock every client out")
        }
        self.host = pattern
        self.sha256 = hashes
        address = pattern.contains("*") ? nil : IPAddress(host: pattern)
    }

    /// Whether this pin applies to `host` (any case, a trailing dot ignored, an IPv6 address with or without
    /// brackets).
    package func matches(host: String) -> Bool {
        // Compared as bytes: the patterns are ASCII names in practice, and bytes have no canonical equivalence that
        // could make a name end in `.example.com` without its bytes doing so.
        let normalized = Self.normalized(host)
        if let address { return IPAddress(host: normalized) == address }
        let name = Array(normalized.utf8)
        let pattern = Array(self.host.utf8)
        let wildcard = pattern.starts(with: "**.".utf8) ? 3 : pattern.starts(with: "*.".utf8) ? 2 : 0
        guard wildcard > 0 else { return name == pattern }
        // The domain after the wildcard, with its leading dot: what a matching name ends with.
        let domain = pattern[(wildcard - 1)...]
        if wildcard == 3, name.elementsEqual(domain.dropFirst()) { return true }
        guard name.count > domain.count, name.suffix(domain.count).elementsEqual(domain) else { return false }
        let labels = name.dropLast(domain.count)
        // `*.` takes exactly one label: no dot before the domain's.
        return wildcard == 3 || !labels.contains(UInt8(ascii: "."))
    }

    /// `api.example.com: sha256/…, sha256/…`.
    public var description: String {
        "\(host): " + sha256.map { "sha256/\($0)" }.joined(separator: ", ")
    }

    /// `host` as patterns and hosts are compared: lower-cased, without a trailing dot or the brackets of an IPv6
    /// address, so that `API.Example.com.` and `[::1]` find the pins written `api.example.com` and `::1`.
    package static func normalized(_ host: String) -> String {
        var text = Substring(host.lowercased())
        if text.hasPrefix("["), text.hasSuffix("]"), text.count >= 2 { text = text.dropFirst().dropLast() }
        if text.hasSuffix(".") { text = text.dropLast() }
        return String(text)
    }

    /// Throws unless `pattern` (normalized) is a name, an IP address, or a name after a leading `*.` or `**.`.
    private static func validate(pattern: String, setting: String) throws {
        guard !pattern.isEmpty else {
            throw ConnectionSettingError(
                setting: setting, reason: "the host pattern is empty; write a host such as api.example.com")
        }
        if pattern.contains(where: { $0.isWhitespace || $0 == "/" || $0.asciiValue.map { $0 < 0x20 } == true }) {
            throw ConnectionSettingError(
                setting: setting,
                reason: "the host pattern holds a space, a control character or a slash; write the host alone, "
                    + "without scheme or path, such as api.example.com")
        }
        let wildcard = pattern.hasPrefix("**.") ? 3 : pattern.hasPrefix("*.") ? 2 : 0
        let rest = pattern.dropFirst(wildcard)
        // An address is matched as itself: `*.0.0.1` would name no host a certificate can be issued for.
        if pattern.contains("*"), CookieMatching.isIPAddress(String(rest.drop { $0 == "*" })) {
            throw ConnectionSettingError(
                setting: setting,
                reason: "an IP address cannot take a wildcard; pin the address itself, such as 192.0.2.1")
        }
        guard !rest.contains("*") else {
            throw ConnectionSettingError(
                setting: setting,
                reason: "a wildcard may only be the whole first label: *.example.com (one more label) or "
                    + "**.example.com (any number of labels, zero included)")
        }
        // A colon belongs to an IPv6 address only; a name with a port would never match.
        if rest.contains(":") {
            guard IPAddress(host: rest) != nil else {
                throw ConnectionSettingError(
                    setting: setting,
                    reason: "the host pattern holds a colon but is not an IPv6 address; write the host without a "
                        + "port, such as api.example.com")
            }
            return
        }
        // No empty label: `a..b`, `.example.com`. (A bare `*.` lost its dot to normalization, and is refused above.)
        guard !rest.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw ConnectionSettingError(
                setting: setting, reason: "the host pattern has an empty label; write a host such as api.example.com")
        }
    }

    /// `text` as a canonical base64 SHA-256 (padded, no prefix), or the error saying why it is not one.
    private static func canonicalHash(_ text: String, setting: String) throws -> String {
        // Blanks around a hash copied from a terminal are no part of it.
        var body = text.drop(while: \.isWhitespace)
        while body.last?.isWhitespace == true { body = body.dropLast() }
        if body.hasPrefix("sha256/") { body = body.dropFirst("sha256/".count) }
        let shown = body.count > 60 ? "\(body.prefix(60))…" : String(body)
        // Padding is optional in some tools' output; the 44 characters of a padded hash are what `Data` expects.
        var padded = String(body)
        if padded.count % 4 != 0 { padded += String(repeating: "=", count: 4 - padded.count % 4) }
        guard let bytes = Data(base64Encoded: padded) else {
            throw ConnectionSettingError(
                setting: setting,
                reason: "\"\(shown)\" is not base64; a pin is the base64 of a SHA-256 hash, 44 characters such as "
                    + "\"sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=\"")
        }
        guard bytes.count == 32 else {
            throw ConnectionSettingError(
                setting: setting,
                reason: "\"\(shown)\" decodes to \(bytes.count) bytes, not the 32 of a SHA-256 hash; a pin is "
                    + "the hash of the key (openssl dgst -sha256 -binary | base64), not the key or certificate itself")
        }
        return bytes.base64EncodedString()
    }
}

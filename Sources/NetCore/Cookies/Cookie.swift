#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One cookie as a ``CookieJar`` keeps it (RFC 6265 §5.3): its name and value, where it may go (domain and path),
/// until when, and its attributes.
///
/// A cookie's value is a secret (a session, a token): ``description``, `debugDescription` and a mirror (`dump`)
/// show every field but the value, which reads `<redacted>`.
///
/// ```swift
/// let session = Cookie(name: "session", value: token, domain: "api.example.com")
/// try jar.setCookie(session)
/// print(session)   // session=<redacted>; Domain=api.example.com; Path=/; HostOnly
/// ```
public struct Cookie: Sendable, Hashable {
    /// The `SameSite` attribute (RFC 6265bis §5.6.7), kept as the server sent it.
    ///
    /// NetKit is not a browser: every request it sends is the caller's own, so it treats all of them as same-site
    /// and sends `Strict`, `Lax` and `None` cookies alike.
    public enum SameSite: String, Sendable, Hashable {
        /// `SameSite=Strict`.
        case strict = "Strict"
        /// `SameSite=Lax`.
        case lax = "Lax"
        /// `SameSite=None` (named so that it cannot be taken for an optional's `.none`).
        case noRestriction = "None"
    }

    /// The name.
    public var name: String
    /// The value, sent as it was received.
    public var value: String
    /// The host (a host-only cookie) or the domain (a cookie for its subdomains too) the cookie belongs to,
    /// lowercased and without a leading dot.
    public var domain: String
    /// The path the cookie is sent under: `/` for every path, `/docs` for `/docs` and `/docs/…`.
    public var path: String
    /// When the cookie expires; `nil` for a session cookie, kept as long as the jar.
    public var expiresAt: Date?
    /// Whether the cookie goes over `https` only.
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly` (kept: NetKit's requests are all HTTP, so it is sent).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, if the server sent a known one.
    public var sameSite: SameSite?
    /// Whether the cookie goes to ``domain`` exactly (a response without a `Domain` attribute) rather than to its
    /// subdomains as well.
    public var isHostOnly: Bool
    /// When the cookie was first stored: of two cookies with paths of the same length, the older is sent first.
    public var createdAt: Date

    /// Creates a cookie.
    /// - Parameters:
    ///   - name: The cookie's name.
    ///   - value: The cookie's value.
    ///   - domain: A host (with `isHostOnly`, the default) or a domain; a leading dot is dropped.
    ///   - path: Starts with `/` (default `/`: every path).
    ///   - expiresAt: `nil` (the default) for a session cookie.
    ///   - isSecure: Sent over HTTPS only.
    ///   - isHTTPOnly: Not for scripts (kept for fidelity; NetKit has none).
    ///   - sameSite: The `SameSite` attribute, if any.
    ///   - isHostOnly: Sent to `domain` itself only, not to its subdomains.
    ///   - createdAt: When it was first stored (orders cookies with paths of the same length).
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        expiresAt: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        sameSite: SameSite? = nil,
        isHostOnly: Bool = true,
        createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = CookieMatching.canonical(
            domain.utf8.first == UInt8(ascii: ".") ? String(decoding: domain.utf8.dropFirst(), as: UTF8.self) : domain)
        self.path = path
        self.expiresAt = expiresAt
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.isHostOnly = isHostOnly
        self.createdAt = createdAt
    }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// Whether the cookie goes with a request to `host` and `path` over a secure (`https`) connection or not, at
    /// `now` (RFC 6265 §5.4, step 1).
    package func matches(_ target: CookieTarget, at now: Date) -> Bool {
        let domainMatches =
            isHostOnly ? CookieMatching.same(target.host, domain) : CookieMatching.domain(target.host, matches: domain)
        return domainMatches && CookieMatching.path(target.path, matches: path) && (!isSecure || target.isSecure)
            && !isExpired(at: now)
    }

    /// `name=value`, as the `Cookie` header carries it.
    package var pair: String { name + "=" + value }
}

extension Cookie: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The cookie as `Set-Cookie` attributes, its value redacted.
    public var description: String {
        var parts = [name + "=" + LogRedaction.placeholder, "Domain=" + domain, "Path=" + path]
        if let expiresAt { parts.append("Expires=\(expiresAt)") }
        if isSecure { parts.append("Secure") }
        if isHTTPOnly { parts.append("HttpOnly") }
        if let sameSite { parts.append("SameSite=" + sameSite.rawValue) }
        if isHostOnly { parts.append("HostOnly") }
        return parts.joined(separator: "; ")
    }

    /// The same as ``description``: the value redacted.
    public var debugDescription: String { "Cookie(" + description + ")" }

    /// The fields, the value redacted: what `dump` and reflection show.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "name": name, "value": LogRedaction.placeholder, "domain": domain, "path": path,
                "expiresAt": expiresAt as Any,
                "isSecure": isSecure, "isHTTPOnly": isHTTPOnly, "sameSite": sameSite as Any, "isHostOnly": isHostOnly,
                "createdAt": createdAt,
            ], displayStyle: .struct)
    }
}

#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import NetCore

/// NetKit's `Cookie` and Foundation's `HTTPCookie`, one into the other: on Linux URLSessionTransport keeps
/// and reads a configuration's `HTTPCookieStorage` by NetKit's cookie rules (RFC 6265bis, the `CookieJar`'s),
/// because FoundationNetworking's storage matches the host alone (what that would let through: HTTPCookieStorage+
/// RequestCookies.swift and HTTPCookieStorage+ResponseCookies.swift).
extension Cookie {
    /// `cookie` as the rules read it: a domain with a leading dot is a domain cookie (sent to its subdomains too),
    /// one without a host-only cookie, as FoundationNetworking's storage matches them.
    init(_ cookie: HTTPCookie) {
        var domain = Substring(cookie.domain)
        let isHostOnly = domain.utf8.first != UInt8(ascii: ".")
        if !isHostOnly { domain = domain.dropFirst() }
        self.init(
            name: cookie.name, value: cookie.value, domain: CookieMatching.canonical(String(domain)),
            path: cookie.path.isEmpty ? "/" : cookie.path, expiresAt: cookie.expiresDate, isSecure: cookie.isSecure,
            isHTTPOnly: cookie.isHTTPOnly, isHostOnly: isHostOnly)
    }

    /// The cookie as the storage keeps it; `nil` when Foundation refuses its fields.
    var httpCookie: HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path, .domain: isHostOnly ? domain : "." + domain,
        ]
        if let expiresAt { properties[.expires] = expiresAt }
        // Foundation reads these two as strings; a `Bool` would be taken as absent.
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }
}
#endif

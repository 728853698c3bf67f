/// RFC 6265's matching rules as pure functions: domain-match (§5.1.3), default-path (§5.1.4) and path-match
/// (§5.1.4).
package enum CookieMatching {
    /// A host or domain as cookies compare it: ASCII lowercase (RFC 6265 §5.1.2; hosts reach NetKit already in
    /// their ASCII form).
    package static func canonical(_ host: String) -> String {
        guard host.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return host }
        return String(
            decoding: host.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 },
            as: UTF8.self)
    }

    /// Whether `host` domain-matches `domain` (both canonical): they are the same, or `host` is a name (not an IP
    /// address) that ends with `.` + `domain`.
    package static func domain(_ host: String, matches domain: String) -> Bool {
        if host == domain { return true }
        guard !domain.isEmpty, host.utf8.count > domain.utf8.count, host.hasSuffix(domain), !isIPAddress(host) else {
            return false
        }
        let boundary = host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)
        return host.utf8[boundary] == UInt8(ascii: ".")
    }

    /// Whether `path` (a request's, without query) path-matches `cookiePath`: the same, or `cookiePath` is a
    /// prefix of it that ends with `/` or is followed by `/` in it.
    package static func path(_ path: String, matches cookiePath: String) -> Bool {
        if path == cookiePath { return true }
        guard path.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        let next = path.utf8.index(path.utf8.startIndex, offsetBy: cookiePath.utf8.count)
        return path.utf8[next] == UInt8(ascii: "/")
    }

    /// The path a cookie without a `Path` attribute gets from the request's path: up to (not including) its last
    /// `/`, or `/` when that leaves nothing.
    package static func defaultPath(of requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let last = requestPath.lastIndex(of: "/"), last != requestPath.startIndex
        else {
            return "/"
        }
        return String(requestPath[..<last])
    }

    /// Whether `host` is an IPv4 or IPv6 address, which only matches itself.
    package static func isIPAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.utf8.count <= 3
                    && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    && Int(part).map { $0 <= 255 } == true
            }
    }
}

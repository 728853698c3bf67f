/// RFC 6265's matching rules as pure functions: domain-match (§5.1.3), default-path (§5.1.4) and path-match
/// (§5.1.4), and the byte comparisons every cookie rule is made of.
///
/// Everything here compares UTF-8 bytes, never `String` equality, `hasPrefix` or `Character`s: Swift's `String`
/// takes canonically equivalent text as equal (U+212A KELVIN SIGN and "K", "é" and "e" + U+0301), which lets a
/// server's bytes match, split or replace where they must not, and once let an index computed on one string's
/// bytes fall outside another's (`Path=/\u{212A}` against a request for `/Kx` trapped). Only hosts and domains
/// are case-folded, and in ASCII only.
package enum CookieMatching {
    /// A host or domain as cookies compare it: ASCII lowercase (RFC 6265 §5.1.2; hosts reach NetKit already in
    /// their ASCII form), other bytes unchanged.
    package static func canonical(_ host: String) -> String {
        guard host.utf8.contains(where: isUppercase) else { return host }
        return String(decoding: host.utf8.map { isUppercase($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `lhs` and `rhs` are the same bytes.
    package static func same(_ lhs: String, _ rhs: String) -> Bool {
        // Equal bytes are equal `String`s, so `==` (fast, and false for most pairs) rules out the rest first; the
        // bytes then tell canonically equivalent strings apart.
        lhs == rhs && lhs.utf8.count == rhs.utf8.count && lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Whether `text`'s bytes start with `prefix`'s.
    package static func hasPrefix(_ text: some StringProtocol, _ prefix: some StringProtocol) -> Bool {
        text.utf8.count >= prefix.utf8.count && text.utf8.prefix(prefix.utf8.count).elementsEqual(prefix.utf8)
    }

    /// Whether `text`'s bytes start with `prefix`'s, ASCII letters in either case (`prefix` is lowercase).
    static func hasCaseInsensitivePrefix(_ text: some StringProtocol, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count
            && zip(text.utf8, prefix.utf8).allSatisfy { (isUppercase($0) ? $0 | 0x20 : $0) == $1 }
    }

    /// Whether `text` is `lowercase` in ASCII case-insensitive bytes (`lowercase` is lowercase ASCII).
    static func equalsIgnoringCase(_ text: some StringProtocol, _ lowercase: String) -> Bool {
        text.utf8.count == lowercase.utf8.count && hasCaseInsensitivePrefix(text, lowercase)
    }

    /// Whether `host` domain-matches `domain` (both canonical): the same bytes, or `host` is a name (not an IP
    /// address) whose bytes end with `.` and `domain`'s. A trailing dot is a byte like any other: `example.com.`
    /// and `example.com` are two hosts, as browsers have them.
    package static func domain(_ host: String, matches domain: String) -> Bool {
        if same(host, domain) { return true }
        let hostBytes = host.utf8
        let domainBytes = domain.utf8
        guard !domainBytes.isEmpty, hostBytes.count > domainBytes.count, !isIPAddress(host) else { return false }
        let tail = hostBytes.suffix(domainBytes.count + 1)
        return tail.first == UInt8(ascii: ".") && tail.dropFirst().elementsEqual(domainBytes)
    }

    /// Whether `path` (a request's, without query) path-matches `cookiePath`: the same bytes, or `cookiePath`'s
    /// bytes begin it and either end with `/` or are followed by `/` in it.
    package static func path(_ path: String, matches cookiePath: String) -> Bool {
        let pathBytes = path.utf8
        let cookieBytes = cookiePath.utf8
        guard hasPrefix(path, cookiePath) else { return false }
        if pathBytes.count == cookieBytes.count || cookieBytes.last == UInt8(ascii: "/") { return true }
        return pathBytes.dropFirst(cookieBytes.count).first == UInt8(ascii: "/")
    }

    /// The path a cookie without a `Path` attribute gets from the request's path: up to (not including) its last
    /// `/`, or `/` when that leaves nothing.
    package static func defaultPath(of requestPath: String) -> String {
        let bytes = requestPath.utf8
        guard bytes.first == UInt8(ascii: "/"), let last = bytes.lastIndex(of: UInt8(ascii: "/")),
            last != bytes.startIndex
        else {
            return "/"
        }
        return String(decoding: bytes[..<last], as: UTF8.self)
    }

    /// Whether `host` is an IP address, which matches only itself: an IPv6 address (it holds a `:`), or a name
    /// whose last label (a trailing dot aside) is a number, decimal or `0x` hexadecimal, which a URL parser reads as
    /// an IPv4 address (WHATWG URL's "ends in a number": `127.0.0.1`, `10.1`, `0x7f.1`).
    package static func isIPAddress(_ host: String) -> Bool {
        var bytes = host.utf8[...]
        if bytes.contains(UInt8(ascii: ":")) { return true }
        if bytes.last == UInt8(ascii: ".") { bytes = bytes.dropLast() }
        let last = bytes.lastIndex(of: UInt8(ascii: ".")).map { bytes[bytes.index(after: $0)...] } ?? bytes
        guard !last.isEmpty else { return false }
        if last.allSatisfy(isDigit) { return true }
        let hex = last.dropFirst(2)
        return last.count >= 2 && last.first == UInt8(ascii: "0")
            && (last.dropFirst().first ?? 0) | 0x20 == UInt8(ascii: "x")
            && hex.allSatisfy { isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

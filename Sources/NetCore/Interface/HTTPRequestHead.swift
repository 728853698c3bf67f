#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a request says before its body: method, target (scheme, authority, path and query) and header fields.
///
/// The target is kept as the parts that go on the wire, already percent-encoded: `https`, `api.example.com:8443`,
/// `/v1/users?page=2`. Every part is checked when it is set, like the header fields: no part can carry a space,
/// CR, LF, NUL or another control character onto the wire, and the path cannot carry a fragment.
///
/// ```swift
/// var head = try HTTPRequestHead(method: .get, url: URL(string: "https://api.example.com/v1/users?page=2")!)
/// try head.headerFields.setValue("application/json", for: "Accept")
/// head.path         // "/v1/users?page=2"
/// head.url          // https://api.example.com/v1/users?page=2
/// ```
public struct HTTPRequestHead: Sendable, Hashable {
    /// The method.
    public var method: HTTPMethod
    /// The scheme, such as `https`.
    public private(set) var scheme: String
    /// The host and, when it is not the scheme's default, the port: `api.example.com`, `127.0.0.1:8080`,
    /// `[::1]:8443`.
    public private(set) var authority: String
    /// The percent-encoded path and query, starting with `/`: `/v1/users?page=2`.
    public private(set) var path: String
    /// The header fields.
    public var headerFields: HTTPHeaderFields

    /// Creates a head from its parts, after checking them.
    /// - Throws: ``NetworkError/invalidURL`` when a part is not what the wire can carry (see ``setTarget(scheme:authority:path:)``).
    public init(
        method: HTTPMethod,
        scheme: String,
        authority: String,
        path: String,
        headerFields: HTTPHeaderFields = HTTPHeaderFields()
    ) throws(NetworkError) {
        self.method = method
        self.scheme = ""
        self.authority = ""
        self.path = ""
        self.headerFields = headerFields
        try setTarget(scheme: scheme, authority: authority, path: path)
    }

    /// Creates a head for an absolute URL; its fragment and any user and password in it are not sent.
    /// - Throws: ``NetworkError/invalidURL`` for a URL without scheme or host, or with characters the wire cannot
    ///   carry.
    public init(method: HTTPMethod = .get, url: URL, headerFields: HTTPHeaderFields = HTTPHeaderFields())
        throws(NetworkError)
    {
        let target = try Self.target(of: url)
        try self.init(
            method: method, scheme: target.scheme, authority: target.authority, path: target.path,
            headerFields: headerFields)
    }

    /// A head whose parts the caller has already checked.
    package init(
        uncheckedMethod method: HTTPMethod, scheme: String, authority: String, path: String,
        headerFields: HTTPHeaderFields
    ) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.headerFields = headerFields
    }

    // MARK: The target

    /// The absolute URL of the target, parsed from its parts.
    public var url: URL? {
        URL(string: scheme + "://" + authority + path)
    }

    /// The host, without port (and without the brackets of an IPv6 address).
    public var host: String { Self.host(ofAuthority: authority) }

    /// The host of an authority: `api.example.com:8443` → `api.example.com`, `[::1]:80` → `::1`.
    package static func host(ofAuthority authority: String) -> String {
        var host = Substring(authority)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            return String(host[host.index(after: host.startIndex)..<close])
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        return String(host)
    }

    /// The port the authority names, if it names one.
    public var port: Int? {
        guard let colon = authority.lastIndex(of: ":"), !authority[colon...].utf8.contains(UInt8(ascii: "]")) else {
            return nil
        }
        return Int(authority[authority.index(after: colon)...])
    }

    /// The path without its query.
    public var pathWithoutQuery: Substring {
        path.firstIndex(of: "?").map { path[..<$0] } ?? path[...]
    }

    /// The percent-encoded query (what follows `?`), or `nil` when the target has none.
    public var query: Substring? {
        path.firstIndex(of: "?").map { path[path.index(after: $0)...] }
    }

    /// Points the head at another target.
    /// - Parameters:
    ///   - scheme: Letters, digits, `+`, `-` and `.`, starting with a letter.
    ///   - authority: A host with an optional port; visible ASCII without `/`, `?`, `#`, `@` or spaces.
    ///   - path: Percent-encoded, starting with `/` (or `*` alone, for `OPTIONS`); visible ASCII without `#`.
    /// - Throws: ``NetworkError/invalidURL``; the head is then unchanged.
    public mutating func setTarget(scheme: String, authority: String, path: String) throws(NetworkError) {
        guard Self.isValidScheme(scheme), Self.isValidAuthority(authority), Self.isValidPath(path) else {
            throw .invalidURL
        }
        self.scheme = scheme
        self.authority = authority
        self.path = path
    }

    /// Points the head at `url` (see ``init(method:url:headerFields:)``).
    /// - Throws: ``NetworkError/invalidURL``; the head is then unchanged.
    public mutating func setURL(_ url: URL) throws(NetworkError) {
        let target = try Self.target(of: url)
        try setTarget(scheme: target.scheme, authority: target.authority, path: target.path)
    }

    /// Replaces the path and query.
    /// - Throws: ``NetworkError/invalidURL``; the head is then unchanged.
    public mutating func setPath(_ path: String) throws(NetworkError) {
        guard Self.isValidPath(path) else { throw .invalidURL }
        self.path = path
    }

    /// Replaces the query (percent-encoded, without `?`); `nil` removes it.
    /// - Throws: ``NetworkError/invalidURL``; the head is then unchanged.
    public mutating func setQuery(_ query: String?) throws(NetworkError) {
        let bare = String(pathWithoutQuery)
        try setPath(query.map { bare + "?" + $0 } ?? bare)
    }

    // MARK: Checks

    /// The parts of an absolute URL as they go on the wire.
    static func target(of url: URL) throws(NetworkError) -> (scheme: String, authority: String, path: String) {
        let url = url.baseURL == nil ? url : url.absoluteURL
        guard let scheme = url.scheme, !scheme.isEmpty, var host = url.host(percentEncoded: true), !host.isEmpty else {
            throw .invalidURL
        }
        if host.utf8.contains(UInt8(ascii: ":")), !host.hasPrefix("[") { host = "[" + host + "]" }
        let authority = url.port.map { host + ":\($0)" } ?? host
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        return (scheme, authority, path)
    }

    static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.utf8.first, isLetter(first) else { return false }
        return scheme.utf8.allSatisfy {
            isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    static func isValidAuthority(_ authority: String) -> Bool {
        !authority.isEmpty
            && authority.utf8.allSatisfy { byte in
                isVisible(byte) && byte != UInt8(ascii: "/") && byte != UInt8(ascii: "?") && byte != UInt8(ascii: "#")
                    && byte != UInt8(ascii: "@")
            }
    }

    static func isValidPath(_ path: String) -> Bool {
        if path == "*" { return true }
        guard path.utf8.first == UInt8(ascii: "/") else { return false }
        if let valid = path.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isPathByte) }) { return valid }
        return path.utf8.allSatisfy(isPathByte)
    }

    private static func isPathByte(_ byte: UInt8) -> Bool {
        isVisible(byte) && byte != UInt8(ascii: "#")
    }

    private static func isVisible(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

extension HTTPRequestHead: CustomReflectable {
    /// Method, target and header fields, with every query value and the value of every field that carries secrets
    /// hidden: `dump` and debuggers show no credential.
    public var customMirror: Mirror {
        let shownPath = query.map { pathWithoutQuery + "?" + LogRedaction.redactedQuery(String($0)) } ?? path
        return Mirror(
            self,
            children: [
                "method": method, "scheme": scheme, "authority": authority, "path": shownPath,
                "headerFields": headerFields,
            ])
    }
}

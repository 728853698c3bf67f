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
    public var method: HTTPRequestMethod
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
    /// - Throws: as ``setTarget(scheme:authority:path:)``.
    public init(
        method: HTTPRequestMethod,
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
    /// - Throws: ``NetworkError/invalidBaseURL(url:rule:)`` naming the rule the URL breaks: no scheme, no host, or
    ///   characters the wire cannot carry in its host, port, path or query.
    public init(method: HTTPRequestMethod = .get, url: URL, headerFields: HTTPHeaderFields = HTTPHeaderFields())
        throws(NetworkError)
    {
        let target = try Self.target(of: url)
        self.init(
            uncheckedMethod: method, scheme: target.scheme, authority: target.authority, path: target.path,
            headerFields: headerFields)
    }

    /// A head whose parts the caller has already checked.
    package init(
        uncheckedMethod method: HTTPRequestMethod, scheme: String, authority: String, path: String,
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
        // Bytes, not characters: ASCII delimiters, and no grapheme breaking on a road every request takes.
        let bytes = authority.utf8
        if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
            return String(authority[bytes.index(after: bytes.startIndex)..<close])
        }
        guard let colon = lastColon(in: authority, stoppingAtBracket: false) else { return authority }
        return String(authority[..<colon])
    }

    /// The port the authority names, if it names one.
    public var port: Int? { Self.port(ofAuthority: authority) }

    /// The port an authority names, if it names one: `api.example.com:8443` → 8443, `[::1]` → `nil`.
    package static func port(ofAuthority authority: String) -> Int? {
        let bytes = authority.utf8
        guard let colon = lastColon(in: authority, stoppingAtBracket: true) else { return nil }
        return Int(Substring(bytes[bytes.index(after: colon)...]))
    }

    /// The authority's last `:`; with `stoppingAtBracket`, only one after the last `]` (the `:` before a port, not
    /// one inside an IPv6 address). Read from the contiguous bytes where the string has them: the view's own
    /// backward walk cost more than the rest of an event's origin (profiled).
    private static func lastColon(in authority: String, stoppingAtBracket: Bool) -> String.Index? {
        let bytes = authority.utf8
        let offset: Int?? = bytes.withContiguousStorageIfAvailable { buffer -> Int? in
            var index = buffer.count
            while index > 0 {
                index -= 1
                if buffer[index] == UInt8(ascii: ":") { return index }
                if stoppingAtBracket, buffer[index] == UInt8(ascii: "]") { return nil }
            }
            return nil
        }
        if let offset { return offset.map { bytes.index(bytes.startIndex, offsetBy: $0) } }
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        return stoppingAtBracket && bytes[colon...].contains(UInt8(ascii: "]")) ? nil : colon
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
    /// - Throws: ``NetworkError/invalidBaseURL(url:rule:)`` for a scheme or authority the wire cannot carry (the
    ///   rule named: ``NetworkError/BaseURLRule/noScheme``, ``NetworkError/BaseURLRule/unsupportedScheme``,
    ///   ``NetworkError/BaseURLRule/noHost``, ``NetworkError/BaseURLRule/invalidAuthority``);
    ///   ``NetworkError/invalidURL`` for a path the wire cannot carry, as ``setPath(_:)``. The head is then unchanged.
    public mutating func setTarget(scheme: String, authority: String, path: String) throws(NetworkError) {
        let rule: NetworkError.BaseURLRule? =
            if scheme.isEmpty {
                .noScheme
            } else if !Self.isValidScheme(scheme) {
                .unsupportedScheme
            } else if authority.isEmpty {
                .noHost
            } else if !Self.isValidAuthority(authority) {
                .invalidAuthority
            } else {
                nil
            }
        if let rule {
            throw .invalidBaseURL(url: NetworkError.printableURL(scheme + "://" + authority + path), rule: rule)
        }
        guard Self.isValidPath(path) else { throw .invalidURL }
        self.scheme = scheme
        self.authority = authority
        self.path = path
    }

    /// Points the head at `url` (see ``init(method:url:headerFields:)``).
    /// - Throws: as ``init(method:url:headerFields:)``; the head is then unchanged.
    public mutating func setURL(_ url: URL) throws(NetworkError) {
        let target = try Self.target(of: url)
        scheme = target.scheme
        authority = target.authority
        path = target.path
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

    /// The parts of an absolute URL as they go on the wire, each checked.
    /// - Throws: ``NetworkError/invalidBaseURL(url:rule:)`` naming the first rule `url` breaks.
    static func target(of url: URL) throws(NetworkError) -> (scheme: String, authority: String, path: String) {
        let url = url.baseURL == nil ? url : url.absoluteURL
        guard let scheme = url.scheme, !scheme.isEmpty else { throw .invalidBaseURL(url, .noScheme) }
        guard var host = url.host(percentEncoded: true), !host.isEmpty else {
            throw .invalidBaseURL(url, missingHostRule(url, scheme: scheme))
        }
        guard isValidScheme(scheme) else { throw .invalidBaseURL(url, .unsupportedScheme) }
        if host.utf8.contains(UInt8(ascii: ":")), !host.hasPrefix("[") { host = "[" + host + "]" }
        let authority = url.port.map { host + ":\($0)" } ?? host
        guard isValidAuthority(authority) else { throw .invalidBaseURL(url, .invalidAuthority) }
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        guard isValidPath(path) else { throw .invalidBaseURL(url, .invalidTarget) }
        return (scheme, authority, path)
    }

    /// Why `url`, whose scheme is `scheme`, has no host: an `http` or `https` URL without one
    /// (``NetworkError/BaseURLRule/noHost``); a host and port whose host reads as a scheme, `localhost:8080`
    /// (``NetworkError/BaseURLRule/noScheme``); or another scheme, `mailto:` or `file:///`
    /// (``NetworkError/BaseURLRule/unsupportedScheme``).
    private static func missingHostRule(_ url: URL, scheme: String) -> NetworkError.BaseURLRule {
        if isHTTPScheme(scheme) { return .noHost }
        // What follows `scheme:`: a port (`8080`, `443/v1`) says the scheme was forgotten.
        let rest = url.absoluteString.utf8.dropFirst(scheme.utf8.count + 1)
        if let first = rest.first, isDigit(first) { return .noScheme }
        return .unsupportedScheme
    }

    /// Whether `scheme` is `http` or `https`, in any case: the schemes a base URL may have.
    static func isHTTPScheme(_ scheme: String) -> Bool {
        HeaderValidation.namesMatch(scheme, "http") || HeaderValidation.namesMatch(scheme, "https")
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

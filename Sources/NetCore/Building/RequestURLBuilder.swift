#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Joins a base URL, a request path, query parameters and query items into the target a request is sent to.
///
/// Pure and deterministic. The path is judged segment by segment: `..` is refused also when percent-encoded
/// (`%2e%2e`) or double-encoded (`%252e%252e`), while a name such as `report..pdf` is fine. The base URL's
/// own query is kept; the request's parameters follow it, sorted by name, then its query items in their own order,
/// repeated names included. Every name and value is percent-encoded (RFC 3986's unreserved set stays as it is), so
/// no text is refused and none can end a pair early or start a fragment.
package enum RequestURLBuilder {
    /// The URL for `path`, `query` and `queryItems` under `base`.
    /// - Throws: ``NetworkError/invalidBaseURL(url:rule:)`` for a base URL without scheme or host, with a scheme
    ///   other than `http` or `https`, or with a part the wire cannot carry, naming the rule;
    ///   ``NetworkError/invalidPath(path:rule:)`` for a path that traverses, names a scheme, carries a query or
    ///   fragment, or holds control characters or backslashes.
    package static func url(
        base: URL, path: String, query: [String: String]?, queryItems: [URLQueryItem]? = nil
    ) throws(NetworkError) -> URL {
        guard let url = try target(base: base, path: path, query: query, queryItems: queryItems).url else {
            throw .invalidURL
        }
        return url
    }

    /// The request target for `path`, `query` and `queryItems` under `base`, as parts that go on the wire: no URL
    /// is parsed.
    /// - Throws: as ``url(base:path:query:queryItems:)``.
    package static func target(
        base: URL, path: String, query: [String: String]?, queryItems: [URLQueryItem]? = nil,
        method: HTTPRequestMethod = .get
    ) throws(NetworkError) -> HTTPRequestHead {
        try target(base: baseTarget(of: base), path: path, query: query, queryItems: queryItems, method: method)
    }

    /// A base URL taken apart (see ``HTTPRequestHead/target(of:)``), its scheme and authority checked.
    typealias BaseTarget = (scheme: String, authority: String, path: String)

    /// `base` taken apart, its scheme, authority, path and query checked once for every request under it.
    /// - Throws: ``NetworkError/invalidBaseURL(url:rule:)`` naming the first rule `base` breaks: no scheme, a scheme
    ///   other than `http` or `https`, no host, or a part the wire cannot carry.
    static func baseTarget(of base: URL) throws(NetworkError) -> BaseTarget {
        let target = try HTTPRequestHead.target(of: base)
        guard HTTPRequestHead.isHTTPScheme(target.scheme) else { throw .invalidBaseURL(base, .unsupportedScheme) }
        return target
    }

    /// The request target under a base URL already taken apart and checked (see ``baseTarget(of:)``).
    static func target(
        base baseTarget: BaseTarget,
        path: String,
        query: [String: String]?,
        queryItems: [URLQueryItem]? = nil,
        method: HTTPRequestMethod
    ) throws(NetworkError) -> HTTPRequestHead {
        try validate(path: path)
        var basePath = Substring(baseTarget.path)
        var existingQuery: Substring = ""
        if let mark = basePath.utf8.firstIndex(of: UInt8(ascii: "?")) {
            existingQuery = basePath[basePath.utf8.index(after: mark)...]
            basePath = basePath[..<mark]
        }
        var joined = join(basePath, PercentEncoding.encodePath(path))
        if joined.isEmpty { joined = "/" }
        var extra = query.flatMap { $0.isEmpty ? nil : FormURLEncoding.encode($0) }
        if let queryItems, !queryItems.isEmpty {
            let items = encode(queryItems)
            extra = extra.map { $0 + "&" + items } ?? items
        }
        if !existingQuery.isEmpty || extra != nil {
            joined += "?"
            joined += existingQuery
            if let extra { joined += existingQuery.isEmpty ? extra : "&" + extra }
        }
        // The scheme and authority were checked with the base: only the path is new.
        guard HTTPRequestHead.isValidPath(joined) else { throw .invalidURL }
        return HTTPRequestHead(
            uncheckedMethod: method, scheme: baseTarget.scheme, authority: baseTarget.authority, path: joined,
            headerFields: HTTPHeaderFields()
        )
    }

    /// `items` as `name=value` pairs joined by `&`, in their order; an item without a value is its name alone.
    static func encode(_ items: [URLQueryItem]) -> String {
        var encoded = ""
        for (index, item) in items.enumerated() {
            if index > 0 { encoded += "&" }
            encoded += PercentEncoding.encodeComponent(item.name)
            if let value = item.value {
                encoded += "="
                encoded += PercentEncoding.encodeComponent(value)
            }
        }
        return encoded
    }

    /// Throws unless `path` is a plain relative or absolute path that stays under the base URL.
    /// - Throws: ``NetworkError/invalidPath(path:rule:)`` naming the path and the rule it breaks (EKNetwork's
    ///   `NetworkManager` shows it as ``NetworkError/invalidURL``).
    package static func validate(path: String) throws(NetworkError) {
        // Only a `..` or a percent-encoding can traverse: a path with neither (`/users/1.json`) skips the segment
        // check, which every request would otherwise pay.
        var mayTraverse = false
        var afterDot = false
        var colon: String.UTF8View.Index?
        for index in path.utf8.indices {
            let rule: NetworkError.PathRule
            let byte = path.utf8[index]
            defer { afterDot = byte == UInt8(ascii: ".") }
            switch byte {
            case 0..<0x20, 0x7F: rule = .controlCharacter
            case UInt8(ascii: "?"): rule = .query
            case UInt8(ascii: "#"): rule = .fragment
            case UInt8(ascii: "\\"): rule = .backslash
            case UInt8(ascii: "."):
                mayTraverse = mayTraverse || afterDot
                continue
            case UInt8(ascii: "%"):
                mayTraverse = true
                continue
            case UInt8(ascii: ":"):
                if colon == nil { colon = index }
                continue
            default:
                continue
            }
            throw .invalidPath(path: NetworkError.printablePath(path), rule: rule)
        }
        if let colon, path[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }),
            path[colon...].hasPrefix("://")
        {
            throw .invalidPath(path: NetworkError.printablePath(path), rule: .scheme)
        }
        guard mayTraverse else { return }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if let rule = traversal(in: segment) {
                throw .invalidPath(path: NetworkError.printablePath(path), rule: rule)
            }
        }
    }

    /// Decodes the segment until it stops changing (bounded: an attacker nests encodings, not forever) and
    /// looks for a `..` among the pieces a server might split it into after decoding; the rule it breaks, if any.
    private static func traversal(in segment: Substring) -> NetworkError.PathRule? {
        // Without a `%` nothing decodes, and neither `/` nor a backslash can occur in a segment (`validate` refuses
        // backslashes): only a plain `..` traverses.
        if !segment.utf8.contains(UInt8(ascii: "%")) { return segment == ".." ? .dotSegment : nil }
        var current = String(segment)
        // Four decodings, each result checked (the last too).
        for round in 0...4 {
            let pieces = current.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map(String.init)
            if current == ".." || pieces.contains("..") { return .encodedDotSegment }
            if current.unicodeScalars.contains(where: { $0.value < 0x20 }) { return .encodedControlCharacter }
            guard round < 4 else { break }
            let decoded = PercentEncoding.decodeOnce(current)
            if decoded == current { return nil }
            current = decoded
        }
        return current.contains("%") ? .nestedEncoding : nil
    }

    private static func join(_ basePath: Substring, _ relative: String) -> String {
        if relative.isEmpty { return String(basePath) }
        var base = basePath.utf8[...]
        if base.last == UInt8(ascii: "/") { base = base.dropLast() }
        var rest = relative.utf8[...]
        if rest.first == UInt8(ascii: "/") { rest = rest.dropFirst() }
        // Byte by byte into the string's own storage: appending substrings cost more than the rest of the join.
        return String(unsafeUninitializedCapacity: base.count + 1 + rest.count) { buffer in
            var position = 0
            for byte in base {
                buffer[position] = byte
                position += 1
            }
            buffer[position] = UInt8(ascii: "/")
            position += 1
            for byte in rest {
                buffer[position] = byte
                position += 1
            }
            return position
        }
    }
}

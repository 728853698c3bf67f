import Foundation

/// Joins a base URL, a request path and query parameters into the URL a request is sent to.
///
/// Pure and deterministic. The path is judged segment by segment: `..` is refused also when percent-encoded
/// (`%2e%2e`) or double-encoded (`%252e%252e`), while a name such as `report..pdf` is fine. The base URL's
/// own query is kept and the request's parameters follow it, sorted by name.
public enum RequestURLBuilder {
    /// The URL for `path` and `query` under `base`.
    /// - Throws: ``NetworkError/invalidURL`` for a base URL without scheme or host, or a path that traverses,
    ///   names a scheme, carries a query or fragment, or holds control characters or backslashes.
    public static func url(base: URL, path: String, query: [String: String]?) throws(NetworkError) -> URL {
        if query?.isEmpty ?? true, let url = try appendingPath(path, to: base) { return url }
        return try urlThroughComponents(base: base, path: path, query: query)
    }

    /// The general road, for any base and query.
    static func urlThroughComponents(base: URL, path: String, query: [String: String]?) throws(NetworkError) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true),
              let scheme = components.scheme, !scheme.isEmpty,
              let host = components.host, !host.isEmpty
        else { throw .invalidURL }
        try validate(path: path)

        let basePath = components.percentEncodedPath
        let relative = PercentEncoding.encodePath(path)
        components.percentEncodedPath = join(basePath, relative)

        var queryParts: [String] = []
        if let existing = components.percentEncodedQuery, !existing.isEmpty { queryParts.append(existing) }
        if let query, !query.isEmpty { queryParts.append(FormURLEncoding.encode(query)) }
        components.percentEncodedQuery = queryParts.isEmpty ? nil : queryParts.joined(separator: "&")
        components.fragment = nil
        guard let url = components.url else { throw .invalidURL }
        return url
    }

    /// The common case without components: an absolute base URL with neither query nor fragment, and no query
    /// parameters. The percent-encoded path is appended to the base's text and parsed once, where the
    /// `URLComponents` road parses the base, serialises and parses again (a tenth of a small request's CPU on
    /// Linux). `nil` when the base does not qualify.
    private static func appendingPath(_ path: String, to base: URL) throws(NetworkError) -> URL? {
        guard base.baseURL == nil, let scheme = base.scheme, !scheme.isEmpty, let host = base.host(), !host.isEmpty
        else { return nil }
        let text = base.absoluteString
        guard !text.utf8.contains(UInt8(ascii: "?")), !text.utf8.contains(UInt8(ascii: "#")) else { return nil }
        try validate(path: path)
        let relative = PercentEncoding.encodePath(path)
        if relative.isEmpty { return base }
        guard let url = URL(string: join(text, relative)) else { throw .invalidURL }
        return url
    }

    /// Throws unless `path` is a plain relative or absolute path that stays under the base URL.
    public static func validate(path: String) throws(NetworkError) {
        for scalar in path.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "?" || scalar == "#" || scalar == "\\" {
                throw .invalidURL
            }
        }
        if let colon = path.firstIndex(of: ":"), path[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }),
           path[colon...].hasPrefix("://") {
            throw .invalidURL
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) where isTraversal(String(segment)) {
            throw .invalidURL
        }
    }

    /// Decodes the segment until it stops changing (bounded: an attacker nests encodings, not forever) and
    /// looks for a `..` among the pieces a server might split it into after decoding.
    private static func isTraversal(_ segment: String) -> Bool {
        // Without a `%` nothing decodes, and neither `/` nor a backslash can occur in a segment (`validate` refuses
        // backslashes): only a plain `..` traverses.
        if !segment.utf8.contains(UInt8(ascii: "%")) { return segment == ".." }
        var current = segment
        for _ in 0..<4 {
            let pieces = current.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map(String.init)
            if current == ".." || pieces.contains("..") { return true }
            if current.unicodeScalars.contains(where: { $0.value < 0x20 }) { return true }
            let decoded = PercentEncoding.decodeOnce(current)
            if decoded == current { return false }
            current = decoded
        }
        return current.contains("%")
    }

    private static func join(_ basePath: String, _ relative: String) -> String {
        if relative.isEmpty { return basePath }
        let trimmedBase = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        let trimmedRelative = relative.hasPrefix("/") ? String(relative.dropFirst()) : relative
        return trimmedBase + "/" + trimmedRelative
    }
}

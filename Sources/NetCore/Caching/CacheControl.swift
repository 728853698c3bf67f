/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), as the cache reads them.
///
/// Directive names are case-insensitive; a value may be a token or a quoted string (`no-cache="Set-Cookie"`),
/// whose commas do not split it. Directives the cache does not act on (`s-maxage` and `proxy-revalidate`: NetKit's
/// cache is private; extensions it does not know) are skipped. A `max-age` that is repeated or not a number makes the response
/// stale (§4.2.1); a number past 2^31 counts as 2^31 (§1.2.2).
package struct CacheControl: Sendable, Equatable {
    /// `no-store`: nothing of the exchange may be stored.
    package var noStore = false
    /// `no-cache` (qualified or not): a stored response must be validated before each use.
    package var noCache = false
    /// `must-revalidate`: once stale, a stored response is never used without validation (no `max-stale`).
    package var mustRevalidate = false
    /// `private`: a shared cache must not store it; NetKit's private cache may.
    package var isPrivate = false
    /// `max-age`: seconds of freshness (response), or the oldest response the client accepts (request).
    package var maxAge: Int?
    /// `max-stale` (request): how stale a response the client accepts; `Int.max` without a value.
    package var maxStale: Int?
    /// `min-fresh` (request): how much freshness the response must have left.
    package var minFresh: Int?
    /// `only-if-cached` (request): answer from the cache or with 504, never from the network.
    package var onlyIfCached = false
    /// `public`: any cache may store it, whatever its status, and give it a heuristic lifetime (§5.2.2.9).
    package var isPublic = false
    /// `must-understand`: store it only when its status code's caching rules are understood, and then despite
    /// `no-store` (§5.2.2.3).
    package var mustUnderstand = false
    /// `immutable` (RFC 8246): while fresh, the response does not change; a reload need not validate it.
    package var immutable = false
    /// `stale-while-revalidate` (RFC 5861 §3): seconds past its freshness during which it may answer at once while
    /// a validation runs in the background.
    package var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861 §4, response or request): seconds past its freshness during which it may answer
    /// when the server fails (a 500, 502, 503 or 504, or no connection).
    package var staleIfError: Int?

    /// The largest delta-seconds the cache counts (RFC 9111 §1.2.2).
    package static let maximumDelta = 2_147_483_648

    /// No directive.
    package init() {}

    /// The directives of every `Cache-Control` field of `fields`; for a request without one, `Pragma: no-cache`
    /// counts as `no-cache` (§5.4).
    package init(_ fields: HTTPHeaderFields, isRequest: Bool = false) {
        let values = fields.values(for: "Cache-Control")
        if values.isEmpty {
            self.init()
            if isRequest, let pragma = fields.value(for: "Pragma"),
                pragma.split(separator: ",").contains(where: { Self.trimmed($0).lowercased() == "no-cache" })
            {
                noCache = true
            }
            return
        }
        self.init(values.joined(separator: ","))
    }

    /// The directives of one field value such as `max-age=60, must-revalidate`.
    package init(_ value: String) {
        var maxAgeSeen = false
        for (name, argument) in Self.directives(of: value) {
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "private": isPrivate = true
            case "only-if-cached": onlyIfCached = true
            case "public": isPublic = true
            case "must-understand": mustUnderstand = true
            case "immutable": immutable = true
            case "stale-while-revalidate":
                staleWhileRevalidate = argument.flatMap(Self.deltaSeconds) ?? 0
            case "stale-if-error":
                staleIfError = argument.flatMap(Self.deltaSeconds) ?? 0
            case "max-age":
                // A second max-age, or one that is not delta-seconds, leaves the response stale.
                maxAge = maxAgeSeen ? 0 : (argument.flatMap(Self.deltaSeconds) ?? 0)
                maxAgeSeen = true
            case "max-stale":
                maxStale = argument.map { Self.deltaSeconds($0) ?? 0 } ?? Int.max
            case "min-fresh":
                minFresh = argument.flatMap(Self.deltaSeconds) ?? 0
            default:
                continue
            }
        }
    }

    /// `1*DIGIT`, capped at ``maximumDelta``; `nil` for anything else (a sign, a fraction, a space inside).
    package static func deltaSeconds(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var value = 0
        for byte in text.utf8 {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value >= maximumDelta { return maximumDelta }
        }
        return value
    }

    /// The `name[=argument]` pairs of a list, names lowercased, quoted arguments unquoted.
    private static func directives(of value: String) -> [(name: String, argument: Substring?)] {
        var result: [(name: String, argument: Substring?)] = []
        for item in splitOutsideQuotes(value) {
            let item = Self.trimmed(item)
            guard !item.isEmpty else { continue }
            guard let equals = item.firstIndex(of: "=") else {
                result.append((item.lowercased(), nil))
                continue
            }
            let name = Self.trimmed(item[..<equals]).lowercased()
            var argument = Self.trimmed(item[item.index(after: equals)...])
            if argument.count >= 2, argument.first == "\"", argument.last == "\"" {
                argument = argument.dropFirst().dropLast()
            }
            result.append((name, argument))
        }
        return result
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
    package static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    /// `value` split at the commas that are not inside a quoted string.
    private static func splitOutsideQuotes(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var escaped = false
        for index in value.indices {
            let character = value[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        parts.append(value[start...])
        return parts
    }
}

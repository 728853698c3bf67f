import Foundation
import NetCore
import NetKitLock

/// A condition a request must meet for a ``Stub`` to answer it. A stub's conditions must all hold.
///
/// ```swift
/// stub.stub(.method(.get), .host("api.test"), .path("/v1/users"), .query("page", "2"), reply: .json("[]"))
/// stub.stub(.url(matching: #/users/\d+$/#), .header("Authorization"), reply: .status(204))
/// stub.stub(.matching("a JSON body") { $0.value(forHeader: "Content-Type") == "application/json" }, reply: .status(201))
/// ```
public struct StubCondition: Sendable, CustomStringConvertible {
    /// What the condition asks, for messages.
    public let description: String
    private let test: @Sendable (StubTransport.RecordedRequest) -> Bool

    /// A condition of your own; `description` says what it asks.
    public init(_ description: String, _ test: @escaping @Sendable (StubTransport.RecordedRequest) -> Bool) {
        self.description = description
        self.test = test
    }

    /// Whether `request` meets the condition.
    public func matches(_ request: StubTransport.RecordedRequest) -> Bool {
        test(request)
    }

    /// The request's method is `method`.
    public static func method(_ method: HTTPRequestMethod) -> StubCondition {
        StubCondition("method \(method.rawValue)") { $0.method == method }
    }

    /// The request's path, without its query, is `path` (as sent, percent-encoded, or decoded).
    public static func path(_ path: String) -> StubCondition {
        StubCondition("path \(path)") { request in
            let sent = request.head.pathWithoutQuery
            return sent == path || String(sent).removingPercentEncoding == path
        }
    }

    /// The request's path, without its query, starts with `prefix`.
    public static func pathPrefix(_ prefix: String) -> StubCondition {
        StubCondition("path prefix \(prefix)") { request in
            let sent = request.head.pathWithoutQuery
            return sent.hasPrefix(prefix) || String(sent).removingPercentEncoding?.hasPrefix(prefix) == true
        }
    }

    /// The request goes to `host` (any case; without port).
    public static func host(_ host: String) -> StubCondition {
        StubCondition("host \(host)") { $0.head.host.lowercased() == host.lowercased() }
    }

    /// The request's query has an item `name` (decoded), with the value `value` when one is given.
    public static func query(_ name: String, _ value: String? = nil) -> StubCondition {
        StubCondition(value.map { "query \(name)=\($0)" } ?? "query \(name)") { request in
            guard let query = request.head.query else { return false }
            var components = URLComponents()
            components.percentEncodedQuery = String(query)
            return components.queryItems?.contains { $0.name == name && (value == nil || $0.value == value) } == true
        }
    }

    /// The request has a header field `name` (any case), with the value `value` when one is given (any of the
    /// fields of that name, compared exactly).
    public static func header(_ name: String, _ value: String? = nil) -> StubCondition {
        StubCondition(value == nil ? "header \(name)" : "header \(name) with a given value") { request in
            let values = request.head.headerFields.values(for: name)
            return value.map(values.contains) ?? !values.isEmpty
        }
    }

    /// The request's absolute URL, as sent (`https://api.test/v1/users?page=2`), contains a match of `regex`
    /// (anchor it with `^` and `$` to match the whole URL).
    public static func url<Output>(matching regex: sending Regex<Output>) -> StubCondition {
        let shared = SharedRegex(regex)
        return StubCondition("URL matching a regular expression") { request in
            let head = request.head
            return shared.isMatched(in: head.scheme + "://" + head.authority + head.path)
        }
    }

    /// The request's absolute URL contains a match of the regular expression `pattern` (Swift `Regex` syntax).
    /// - Throws: the error of a pattern that is not a regular expression.
    public static func url(matchingPattern pattern: String) throws -> StubCondition {
        url(matching: try Regex(pattern))
    }

    /// A closure of your own decides; `description` says what it asks.
    public static func matching(
        _ description: String = "a condition of your own",
        _ test: @escaping @Sendable (StubTransport.RecordedRequest) -> Bool
    ) -> StubCondition {
        StubCondition(description, test)
    }
}

/// A regular expression that requests arriving on several tasks match against: the standard library's `Regex` is
/// not `Sendable`, so it is used by one task at a time.
private final class SharedRegex<Output>: Sendable {
    private let regex: Lock<Regex<Output>>

    init(_ regex: sending Regex<Output>) {
        self.regex = Lock(regex)
    }

    func isMatched(in text: String) -> Bool {
        regex.withLock { text.contains($0) }
    }
}


/// A response type that exposes the HTTP status code and headers instead of a body.
public struct StatusCodeResponse: Decodable, Equatable, Sendable {
    /// The response's status code.
    public let statusCode: Int
    /// The response headers.
    public let headers: [String: String]

    /// Creates a value from a status code and headers.
    public init(statusCode: Int, headers: [String: String]) {
        self.statusCode = statusCode
        self.headers = headers
    }

    /// Creates a value from a response head (repeated headers joined, see ``HTTPHeaderFields/dictionary``).
    public init(_ head: HTTPResponseHead) {
        self.init(statusCode: head.statusCode, headers: head.headerFields.dictionary)
    }

    /// A header's value, matching the name case-insensitively (URLSession may canonicalise header names).
    public func value(forHeader name: String) -> String? {
        headers.value(forCaseInsensitiveKey: name)
    }

    private enum CodingKeys: String, CodingKey {
        case statusCode
        case headers
    }

    /// Decodes `statusCode` and optional `headers` from a payload.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        statusCode = try container.decode(Int.self, forKey: .statusCode)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
    }
}

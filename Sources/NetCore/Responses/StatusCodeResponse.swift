/// A response type that exposes the HTTP status code and headers instead of a body.
public struct StatusCodeResponse: Decodable, Equatable, Sendable {
    /// The response's status code.
    public let statusCode: Int
    /// The response headers (repeated names joined, see ``HTTPHeaderFields/dictionary``).
    public let headers: [String: String]
    /// The response's header fields in order, repeated ones (every `Set-Cookie`) apart.
    public let headerFields: HTTPHeaderFields

    /// Creates a value from a status code and headers.
    public init(statusCode: Int, headers: [String: String]) {
        self.statusCode = statusCode
        self.headers = headers
        // A response's fields describe what arrived; they never go on the wire, so they are kept as given.
        self.headerFields = HTTPHeaderFields(
            headers.sorted { $0.key < $1.key }.map { HTTPHeaderField(uncheckedName: $0.key, value: $0.value) }
        )
    }

    /// Creates a value from a response head.
    public init(_ head: HTTPResponseHead) {
        self.statusCode = head.statusCode
        self.headers = head.headerFields.dictionary
        self.headerFields = head.headerFields
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
        self.init(
            statusCode: try container.decode(Int.self, forKey: .statusCode),
            headers: try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        )
    }
}

extension StatusCodeResponse: CustomReflectable {
    /// The status and the header fields, the values of credentials (`Set-Cookie`, secret-looking names) hidden.
    public var customMirror: Mirror {
        Mirror(self, children: ["statusCode": statusCode, "headerFields": headerFields])
    }
}

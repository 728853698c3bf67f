/// The response of a HAR entry.
public struct HARResponse: Codable, Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The reason phrase (`OK`).
    public var statusText: String
    /// The protocol version (`HTTP/1.1`).
    public var httpVersion: String
    /// The cookies set, one by one. NetKit leaves them out: the `Set-Cookie` header fields hold them, redacted.
    public var cookies: [HARCookie]
    /// The header fields, in order, repeated names kept.
    public var headers: [HARRecord]
    /// The body.
    public var content: HARContent
    /// The `Location` of a redirect; empty otherwise.
    public var redirectURL: String
    /// The head's size in bytes; -1 when unknown.
    public var headersSize: Int
    /// The body's size in bytes as it came over the wire; -1 when unknown.
    public var bodySize: Int
    /// A note of the writer's.
    public var comment: String?

    /// Creates a response.
    public init(
        status: Int, statusText: String = "", httpVersion: String = "HTTP/1.1", cookies: [HARCookie] = [],
        headers: [HARRecord] = [], content: HARContent = HARContent(), redirectURL: String = "",
        headersSize: Int = -1, bodySize: Int = -1, comment: String? = nil
    ) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
    }

    /// Reads a response; only the status must be there.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        statusText = try container.decodeIfPresent(String.self, forKey: .statusText) ?? ""
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = try container.decodeIfPresent([HARCookie].self, forKey: .cookies) ?? []
        headers = try container.decodeIfPresent([HARRecord].self, forKey: .headers) ?? []
        content = try container.decodeIfPresent(HARContent.self, forKey: .content) ?? HARContent()
        redirectURL = try container.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
        headersSize = try container.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
        bodySize = try container.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

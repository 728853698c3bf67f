/// The request of a HAR entry.
public struct HARRequest: Codable, Sendable, Equatable {
    /// The method (`GET`).
    public var method: String
    /// The absolute URL, fragment removed.
    public var url: String
    /// The protocol version (`HTTP/1.1`).
    public var httpVersion: String
    /// The cookies sent, one by one. NetKit leaves them out: the `Cookie` header field holds them, redacted.
    public var cookies: [HARCookie]
    /// The header fields, in order, repeated names kept.
    public var headers: [HARRecord]
    /// The query's items, in order, as the URL holds them.
    public var queryString: [HARRecord]
    /// The body, for a request that has one.
    public var postData: HARPostData?
    /// The head's size in bytes; -1 when unknown.
    public var headersSize: Int
    /// The body's size in bytes; -1 when unknown.
    public var bodySize: Int
    /// A note of the writer's.
    public var comment: String?

    /// Creates a request.
    public init(
        method: String, url: String, httpVersion: String = "HTTP/1.1", cookies: [HARCookie] = [],
        headers: [HARRecord] = [], queryString: [HARRecord] = [], postData: HARPostData? = nil,
        headersSize: Int = -1, bodySize: Int = 0, comment: String? = nil
    ) {
        self.method = method
        self.url = url
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize, comment
    }

    /// Reads a request; only the method and the URL must be there.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = try container.decodeIfPresent([HARCookie].self, forKey: .cookies) ?? []
        headers = try container.decodeIfPresent([HARRecord].self, forKey: .headers) ?? []
        queryString = try container.decodeIfPresent([HARRecord].self, forKey: .queryString) ?? []
        postData = try container.decodeIfPresent(HARPostData.self, forKey: .postData)
        headersSize = try container.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
        bodySize = try container.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

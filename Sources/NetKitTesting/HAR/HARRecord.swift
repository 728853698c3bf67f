/// A name and a value: a header field or a query item of a HAR entry.
public struct HARRecord: Codable, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// A note of the writer's.
    public var comment: String?

    /// Creates a record.
    public init(name: String, value: String, comment: String? = nil) {
        self.name = name
        self.value = value
        self.comment = comment
    }
}

/// A cookie of a HAR entry, as browsers list them beside the `Cookie` and `Set-Cookie` fields.
public struct HARCookie: Codable, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// The path attribute.
    public var path: String?
    /// The domain attribute.
    public var domain: String?
    /// When it expires, ISO 8601.
    public var expires: String?
    /// Whether it is hidden from scripts.
    public var httpOnly: Bool?
    /// Whether it goes over secure connections only.
    public var secure: Bool?
    /// A note of the writer's.
    public var comment: String?

    /// Creates a cookie.
    public init(
        name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
        httpOnly: Bool? = nil, secure: Bool? = nil, comment: String? = nil
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
        self.comment = comment
    }
}

/// A parameter of a form body in a HAR entry (``HARPostData/params``).
public struct HARParameter: Codable, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value, for a field that is not a file.
    public var value: String?
    /// The file's name, for a file.
    public var fileName: String?
    /// The file's type, for a file.
    public var contentType: String?
    /// A note of the writer's.
    public var comment: String?

    /// Creates a parameter.
    public init(
        name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil,
        comment: String? = nil
    ) {
        self.name = name
        self.value = value
        self.fileName = fileName
        self.contentType = contentType
        self.comment = comment
    }
}

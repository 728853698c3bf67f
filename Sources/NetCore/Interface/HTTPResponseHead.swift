/// What a response says before its body: status, reason phrase and header fields.
///
/// Repeated fields stay apart where the transport gives them apart (`Set-Cookie` always does): read them with
/// ``HTTPHeaderFields/values(for:)``.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The status code.
    public var statusCode: Int
    /// The reason phrase the server sent (`OK`, `Not Found`; it may be empty).
    public var reasonPhrase: String
    /// The header fields.
    public var headerFields: HTTPHeaderFields

    /// Creates a head.
    public init(statusCode: Int, reasonPhrase: String = "", headerFields: HTTPHeaderFields = HTTPHeaderFields()) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headerFields = headerFields
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// The `Content-Length` the server declared, when it declared exactly one valid length.
    public var declaredContentLength: Int64? {
        guard let value = headerFields.value(for: "Content-Length"), !value.isEmpty,
            value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(value)
    }

    /// The headers as a dictionary (repeated names joined, see ``HTTPHeaderFields/dictionary``), as EKNetwork's
    /// `[String: String]` headers are.
    public var headers: [String: String] { headerFields.dictionary }

    /// A header's value, matching the name case-insensitively (see ``HTTPHeaderFields/value(for:)``).
    public func value(forHeader name: String) -> String? {
        headerFields.value(for: name)
    }
}

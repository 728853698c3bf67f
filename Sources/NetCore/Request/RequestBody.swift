import Foundation

/// The body of a ``NetworkRequest``: a JSON-encodable value, raw data, a stream, or form fields.
///
/// ```swift
/// var body: RequestBody? { RequestBody(encodable: credentials) }
/// var body: RequestBody? { RequestBody(formURLEncoded: ["grant_type": "password"]) }
/// ```
public struct RequestBody: Sendable {
    /// What the body is made of.
    public enum Content: Sendable {
        /// A value encoded with the request's `jsonEncoder`.
        case encodable(any Encodable & Sendable)
        /// Bytes sent as they are.
        case raw(Data)
        /// A stream for large uploads, sent once (never retried).
        case stream(UploadStream)
        /// Fields sent as `application/x-www-form-urlencoded`, sorted by name.
        case formURLEncoded([String: String])
    }

    /// The body's content.
    public let content: Content
    /// The `Content-Type` header sent with the body.
    public let contentType: String

    /// A body encoded as JSON by the request's `jsonEncoder`.
    public init(encodable: any Encodable & Sendable, contentType: String = "application/json") {
        self.content = .encodable(encodable)
        self.contentType = contentType
    }

    /// A body of raw bytes.
    public init(data: Data, contentType: String) {
        self.content = .raw(data)
        self.contentType = contentType
    }

    /// A body read from a stream, for uploads too large to hold in memory.
    ///
    /// The stream is read by one attempt only; such a request is not retried.
    public init(stream: sending InputStream, contentType: String) {
        self.content = .stream(UploadStream(stream))
        self.contentType = contentType
    }

    /// A body read from a stream of known length (the length feeds upload progress).
    public init(stream: sending InputStream, length: Int64, contentType: String) {
        self.content = .stream(UploadStream(stream, length: length))
        self.contentType = contentType
    }

    /// An `application/x-www-form-urlencoded` body; names and values are percent-encoded (also `+ & =` and
    /// space), fields sorted by name so the bytes are deterministic.
    public init(formURLEncoded parameters: [String: String]) {
        self.content = .formURLEncoded(parameters)
        self.contentType = "application/x-www-form-urlencoded"
    }
}

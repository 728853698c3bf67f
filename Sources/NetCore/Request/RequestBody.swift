import Foundation  // InputStream: not in FoundationEssentials

/// The body of a `NetworkRequest`: a JSON-encodable value, raw data, a file, a stream, or form fields.
///
/// ```swift
/// var body: RequestBody? { RequestBody(encodable: credentials) }
/// var body: RequestBody? { RequestBody(formURLEncoded: ["grant_type": "password"]) }
/// let body = try RequestBody(fileURL: videoURL)   // video/mp4, read piece by piece when sent
/// ```
///
/// Files and streams are never loaded into memory: the transport reads them piece by piece as it sends
/// them, so a body of any size costs one buffer. A body of memory and files can be sent again (retries,
/// 401 → refresh → resend read the file again from its start); a stream body is sent once.
public struct RequestBody: Sendable {
    /// What the body is made of.
    public enum Content: Sendable {
        /// A value encoded with the request's `jsonEncoder`.
        case encodable(any Encodable & Sendable)
        /// Bytes sent as they are.
        case raw(Data)
        /// Bytes read piece by piece from files, streams and memory while the request is sent; replayable
        /// unless a one-shot stream is part of it (``UploadSource/isReplayable``).
        case source(UploadSource)
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

    /// A body that is the file at `fileURL`, read piece by piece while it is sent, so a file of any size
    /// costs one buffer of memory.
    ///
    /// The file is checked now: a missing, unreadable or non-regular file fails here, before any request
    /// is built, not halfway through an upload. Its size goes out as `Content-Length`. The body can be sent
    /// again (a retry or a token refresh reads the file from its start); if the file has another size when
    /// it is read, the request fails with ``UploadSourceError/fileSizeChanged(_:expected:actual:)`` rather
    /// than send a body that disagrees with its length.
    ///
    /// - Parameters:
    ///   - fileURL: A `file:` URL of a regular file.
    ///   - contentType: The `Content-Type`; by default derived from the file's extension
    ///     (`application/octet-stream` when unknown), the same table as `MultipartFormData.mimeType(forPathExtension:)`.
    /// - Throws: ``UploadSourceError/fileNotFound(_:)``, ``UploadSourceError/notARegularFile(_:)`` or
    ///   ``UploadSourceError/fileUnreadable(_:errno:)``.
    public init(fileURL: URL, contentType: String? = nil) throws(UploadSourceError) {
        self.content = .source(try UploadSource(fileURL: fileURL))
        self.contentType = contentType ?? MIMETypeTable.mimeType(forPathExtension: fileURL.pathExtension)
    }

    /// A body of memory, files (or ranges of them) and streams in any order, as described by `source`.
    public init(source: UploadSource, contentType: String) {
        self.content = .source(source)
        self.contentType = contentType
    }

    /// A body read from a stream of unknown length, for uploads too large to hold in memory; sent chunked.
    ///
    /// The stream is read by one attempt only; such a request is not retried, and sending it again fails
    /// with ``NetworkError/uploadStreamConsumed``.
    public init(stream: sending InputStream, contentType: String) {
        self.content = .source(UploadSource(stream: stream, length: nil))
        self.contentType = contentType
    }

    /// A body read from a stream that yields exactly `length` bytes: sent with `Content-Length`, and the
    /// total of upload progress.
    ///
    /// The stream is read by one attempt only, as with ``init(stream:contentType:)``. A stream that ends
    /// early or runs long fails the request with ``UploadSourceError/streamLengthMismatch(expected:actual:)``
    /// instead of sending a body that disagrees with its length.
    ///
    /// - Precondition: `length` is not negative.
    public init(stream: sending InputStream, length: Int64, contentType: String) {
        self.content = .source(UploadSource(stream: stream, length: length))
        self.contentType = contentType
    }

    /// An `application/x-www-form-urlencoded` body; names and values are percent-encoded (also `+ & =` and
    /// space), fields sorted by name so the bytes are deterministic.
    public init(formURLEncoded parameters: [String: String]) {
        self.content = .formURLEncoded(parameters)
        self.contentType = "application/x-www-form-urlencoded"
    }

    /// An `application/x-www-form-urlencoded` body of fields in the order given, a name as often as it comes
    /// (MicroClient's repeatable fields):
    ///
    /// ```swift
    /// RequestBody(formURLEncoded: [
    ///     URLQueryItem(name: "category[]", value: "books"), URLQueryItem(name: "category[]", value: "music"),
    /// ])   // category%5B%5D=books&category%5B%5D=music
    /// ```
    ///
    /// Names and values are percent-encoded (also `+ & =`, brackets and space); a field with a `nil` value is sent as
    /// its name alone.
    public init(formURLEncoded fields: [URLQueryItem]) {
        self.content = .raw(Data(FormURLEncoding.encode(fields).utf8))
        self.contentType = "application/x-www-form-urlencoded"
    }
}

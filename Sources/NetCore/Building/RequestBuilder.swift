#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock

/// Turns an ``Endpoint`` into a ``TransportRequest``: the one request builder `send` and `stream` share.
///
/// Every check happens here, before a byte is sent: the path, the headers, the body kinds. Requests go out
/// with `Accept: application/json` unless they set their own `Accept` (or a default header names one), as
/// EKNetwork sends them.
///
/// The body decides its framing: a body of known size goes out with that `Content-Length` (set by the
/// transport), a stream of unknown size chunked. A request may repeat the right `Content-Length` but not
/// contradict it, nor name a `Transfer-Encoding`: either would make the receiver split the stream differently
/// from what was sent.
public struct RequestBuilder: Sendable {
    /// The `User-Agent` to send when the request does not set one.
    public var userAgent: String? {
        didSet { userAgentField = userAgent.flatMap { try? HTTPHeaderField(name: "User-Agent", value: $0) } }
    }
    /// How long each attempt may wait without a byte moving; `nil` leaves the transport's own idle timeout in
    /// charge (URLSession's `timeoutIntervalForRequest`, AsyncHTTPClient's read timeout).
    public var idleTimeout: Duration?
    /// Headers sent with every request that does not set the same name itself (in `headers` or `headerFields`,
    /// compared case-insensitively); they are sent in name order, after the request's own. A default `Accept` or
    /// `User-Agent` replaces NetKit's; a default `Authorization` counts as the request's own, so no bearer token
    /// replaces it. `Content-Type` always comes from the request (its body's or its `contentType`). A name or value
    /// with CR, LF or NUL, a `Transfer-Encoding`, or a `Content-Length` that is not the body's fails every request
    /// with ``NetworkError/invalidHeader(name:)`` before anything is sent.
    public var defaultHeaders: [String: String] = [:] {
        didSet { defaultFields = Self.fields(of: defaultHeaders) }
    }
    /// The `User-Agent` field, checked once rather than per request.
    private var userAgentField: HTTPHeaderField?
    /// ``defaultHeaders`` in name order, checked once rather than per request: the fields, or the error of the
    /// first invalid one.
    private var defaultFields: Result<[HTTPHeaderField], NetworkError> = .success([])
    /// The last base URL taken apart, shared by the builder's copies: requests mostly go under one base URL, and
    /// reading its parts out of a `URL` costs more than comparing two `URL`s.
    private let baseTargets = BaseTargetCache()

    /// Creates a builder.
    public init(userAgent: String? = nil, idleTimeout: Duration? = nil, defaultHeaders: [String: String] = [:]) {
        self.userAgent = userAgent
        self.idleTimeout = idleTimeout
        self.userAgentField = userAgent.flatMap { try? HTTPHeaderField(name: "User-Agent", value: $0) }
        self.defaultHeaders = defaultHeaders
        self.defaultFields = Self.fields(of: defaultHeaders)
    }

    /// `headers` as checked fields in name order, or the error of the first invalid one.
    private static func fields(of headers: [String: String]) -> Result<[HTTPHeaderField], NetworkError> {
        Result { () throws(NetworkError) in
            try headers.sorted { $0.key < $1.key }.map { (header) throws(NetworkError) -> HTTPHeaderField in
                try HTTPHeaderField(name: header.key, value: header.value)
            }
        }
    }

    private static let acceptJSON = HTTPHeaderField(uncheckedName: "Accept", value: "application/json")

    /// Builds the transport request for `request` under `baseURL`.
    /// - Throws: ``NetworkError/invalidBaseURL(url:rule:)``, ``NetworkError/invalidPath(path:rule:)``,
    ///   ``NetworkError/invalidHeader(name:)`` (also for a
    ///   `Content-Length` that is not the body's size, and for any `Transfer-Encoding`),
    ///   ``NetworkError/conflictingBodyTypes``, ``NetworkError/invalidMultipartEncoding``,
    ///   ``NetworkError/uploadStreamConsumed`` for a stream body an earlier send already read, or the
    ///   `EncodingError` of the request's `jsonEncoder`.
    public func makeRequest<Request: Endpoint>(_ request: Request, baseURL: URL) throws -> TransportRequest {
        let requestBody = try request.makeBody()
        var head = try RequestURLBuilder.target(
            base: baseTargets.target(of: request.baseURL ?? baseURL),
            path: request.path,
            query: request.queryParameters,
            queryItems: request.queryItems,
            method: request.requestMethod
        )

        let body: UploadSource? = try requestBody.map { try Self.source(of: $0, encoder: request.jsonEncoder) }
        if body?.isConsumed == true { throw NetworkError.uploadStreamConsumed }
        let bodyLength: Int64? = body == nil ? 0 : body?.length

        var fields = HTTPHeaderFields()
        let extra = request.headers
        let ownFields = try request.headerFields
        let defaults = try defaultFields.get()
        fields.reserveCapacity(4 + (extra?.count ?? 0) + ownFields.count + defaults.count)
        let contentType = requestBody?.contentType ?? request.contentType
        // The name is a token already: only the value needs the check.
        guard HeaderValidation.isValidValue(contentType) else { throw NetworkError.invalidHeader(name: "Content-Type") }
        fields.append(HTTPHeaderField(uncheckedName: "Content-Type", value: contentType))
        if let extra {
            for (name, value) in extra.sorted(by: { $0.key < $1.key }) {
                try Self.checkFraming(name: name, value: value, bodyLength: bodyLength)
                fields.set(try HTTPHeaderField(name: name, value: value))
            }
        }
        if !ownFields.isEmpty {
            for field in ownFields {
                try Self.checkFraming(name: field.name, value: field.value, bodyLength: bodyLength)
                fields.removeValues(for: field.name)
            }
            for field in ownFields { fields.append(field) }
        }
        for field in defaults {
            try Self.checkFraming(name: field.name, value: field.value, bodyLength: bodyLength)
            if !fields.contains(field.name) { fields.append(field) }
        }
        // EKNetwork sends JSON's Accept unless the request names its own.
        if !fields.contains("Accept") { fields.append(Self.acceptJSON) }
        if let userAgentField, !fields.contains("User-Agent") { fields.append(userAgentField) }
        head.headerFields = fields

        var built = TransportRequest(head: head, body: body, progress: request.progress)
        built.idleTimeout = request.idleTimeout ?? idleTimeout
        built.progress?.follow(body == nil ? .download : .upload)
        return built
    }

    /// The bytes of a body: encoded now when it is a value or form fields, described when it is a file or stream.
    private static func source(of body: RequestBody, encoder: JSONEncoder) throws -> UploadSource {
        switch body.content {
        case .encodable(let value): UploadSource(data: try encoder.encode(value))
        case .raw(let data): UploadSource(data: data)
        case .source(let source): source
        case .formURLEncoded(let fields): UploadSource(data: Data(FormURLEncoding.encode(fields).utf8))
        }
    }

    /// Refuses framing headers that disagree with the body: a `Content-Length` other than the body's known
    /// size (or on a body of unknown size), and any `Transfer-Encoding`.
    static func checkFraming(name: String, value: String, bodyLength: Int64?) throws(NetworkError) {
        if HeaderValidation.namesMatch(name, "Transfer-Encoding") { throw .invalidHeader(name: name) }
        if HeaderValidation.namesMatch(name, "Content-Length") {
            let isDecimal =
                !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard isDecimal, let declared = Int64(value), declared == bodyLength else {
                throw .invalidHeader(name: HeaderValidation.printable(name))
            }
        }
    }
}

/// The parts of the last base URL a builder took apart.
private final class BaseTargetCache: Sendable {
    private let last = Lock<(url: URL, target: RequestURLBuilder.BaseTarget)?>(nil)

    /// `url`'s parts, checked (see ``RequestURLBuilder/baseTarget(of:)``), read out of the URL only when it is not
    /// the last one.
    func target(of url: URL) throws(NetworkError) -> RequestURLBuilder.BaseTarget {
        if let cached = last.withLock({ $0 }), cached.url == url { return cached.target }
        let target = try RequestURLBuilder.baseTarget(of: url)
        last.withLock { $0 = (url, target) }
        return target
    }
}

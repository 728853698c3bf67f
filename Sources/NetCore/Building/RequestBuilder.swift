import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetMultipart

/// Turns a ``NetworkRequest`` into a ``TransportRequest``: the one request builder `send` and `stream` share.
///
/// Every check happens here, before a byte is sent: the path, the headers, the body kinds. Requests go out
/// with `Accept: application/json` unless they set their own `Accept`, as EKNetwork sends them.
///
/// The body decides its framing: a body of known size goes out with that `Content-Length` (set by the
/// transport), a stream of unknown size chunked. A request may repeat the right `Content-Length` but not
/// contradict it, nor name a `Transfer-Encoding`: either would make the receiver split the stream differently
/// from what was sent.
public struct RequestBuilder: Sendable {
    /// The `User-Agent` to send when the request does not set one.
    public var userAgent: String?
    /// The idle timeout of each attempt, in seconds; `nil` leaves the session configuration's
    /// `timeoutIntervalForRequest` in charge.
    public var timeout: TimeInterval?

    /// Creates a builder.
    public init(userAgent: String? = nil, timeout: TimeInterval? = nil) {
        self.userAgent = userAgent
        self.timeout = timeout
    }

    /// Builds the transport request for `request` under `baseURL`.
    /// - Throws: ``NetworkError/invalidURL``, ``NetworkError/invalidHeader(name:)`` (also for a
    ///   `Content-Length` that is not the body's size, and for any `Transfer-Encoding`),
    ///   ``NetworkError/conflictingBodyTypes``, ``NetworkError/invalidMultipartEncoding``,
    ///   ``NetworkError/uploadStreamConsumed`` for a stream body an earlier send already read, or the
    ///   `EncodingError` of the request's `jsonEncoder`.
    public func makeRequest<Request: NetworkRequest>(_ request: Request, baseURL: URL) throws -> TransportRequest {
        if request.body != nil && request.multipartData != nil { throw NetworkError.conflictingBodyTypes }
        let url = try RequestURLBuilder.url(base: baseURL, path: request.path, query: request.queryParameters)

        var head = URLRequest(url: url)
        if let timeout { head.timeoutInterval = timeout }
        // A new request is a GET already; setting the method makes Foundation copy and normalise the request.
        if request.method.rawValue != "GET" { head.httpMethod = request.method.rawValue }
        var headers: [(String, String)] = [("Content-Type", request.contentType)]
        let payload: RequestPayload
        if let form = request.multipartData {
            payload = try Self.payload(of: form)
            headers.append(("Content-Type", form.contentType))
        } else if let body = request.body {
            payload = try Self.payload(of: body, encoder: request.jsonEncoder)
            headers.append(("Content-Type", body.contentType))
        } else {
            payload = .empty
        }
        if payload.isConsumed { throw NetworkError.uploadStreamConsumed }
        if let extra = request.headers {
            try Self.checkFraming(extra, of: payload)
            headers += extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        func isSet(_ name: String) -> Bool {
            headers.contains { HeaderValidation.namesMatch($0.0, name) }
        }
        // EKNetwork sends JSON's Accept unless the request names its own.
        if !isSet("Accept") { headers.append(("Accept", "application/json")) }
        if let userAgent, !isSet("User-Agent") { headers.append(("User-Agent", userAgent)) }

        head.allHTTPHeaderFields = try Self.fields(headers)
        return TransportRequest(head: head, payload: payload, progress: request.progress)
    }

    /// The headers as one dictionary, each checked; a later value replaces an earlier one of the same name in any
    /// case, under the earlier spelling, as `setValue(_:forHTTPHeaderField:)` would. Assigned at once: on Linux
    /// every `setValue` copies the request and compares each name case-insensitively through `NSString`.
    package static func fields(_ headers: [(String, String)]) throws(NetworkError) -> [String: String] {
        var fields: [String: String] = [:]
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            try HeaderValidation.validate(name: name, value: value)
            if fields[name] == nil, let spelling = fields.keys.first(where: { HeaderValidation.namesMatch($0, name) }) {
                fields[spelling] = value
            } else {
                fields[name] = value
            }
        }
        return fields
    }

    private static func payload(of body: RequestBody, encoder: JSONEncoder) throws -> RequestPayload {
        switch body.content {
        case .encodable(let value): .data(try encoder.encode(value))
        case .raw(let data): .data(data)
        case .source(let source): .source(source)
        case .formURLEncoded(let fields): .data(Data(FormURLEncoding.encode(fields).utf8))
        }
    }

    /// A form held in memory is encoded into one `Data`, as EKNetwork sends it; a form with file or stream
    /// parts is sent as a source that reads each part when the transport asks for it, never assembled.
    static func payload(of form: MultipartFormData) throws(NetworkError) -> RequestPayload {
        do {
            if form.parts.allSatisfy(\.isInMemory) { return .data(try form.encoded()) }
            return .source(try form.uploadSource())
        } catch {
            throw .invalidMultipartEncoding
        }
    }

    /// Refuses framing headers that disagree with the body: a `Content-Length` other than the body's known
    /// size (or on a body of unknown size), and any `Transfer-Encoding`.
    static func checkFraming(_ headers: [String: String], of payload: RequestPayload) throws(NetworkError) {
        for (name, value) in headers {
            if name.caseInsensitiveCompare("Transfer-Encoding") == .orderedSame {
                throw .invalidHeader(name: name)
            }
            if name.caseInsensitiveCompare("Content-Length") == .orderedSame {
                let isDecimal = !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                guard isDecimal, let declared = Int64(value), declared == payload.knownLength else {
                    throw .invalidHeader(name: name)
                }
            }
        }
    }
}

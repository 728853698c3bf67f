import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetMultipart

/// Turns a ``NetworkRequest`` into a ``TransportRequest``: the one request builder `send` and `stream` share.
///
/// Every check happens here, before a byte is sent: the path, the headers, the body kinds. Requests go out
/// with `Accept: application/json` unless they set their own `Accept`, as EKNetwork sends them.
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
    /// - Throws: ``NetworkError/invalidURL``, ``NetworkError/invalidHeader(name:)``,
    ///   ``NetworkError/conflictingBodyTypes``, ``NetworkError/invalidMultipartEncoding``, or the
    ///   `EncodingError` of the request's `jsonEncoder`.
    public func makeRequest<Request: NetworkRequest>(_ request: Request, baseURL: URL) throws -> TransportRequest {
        if request.body != nil && request.multipartData != nil { throw NetworkError.conflictingBodyTypes }
        let url = try RequestURLBuilder.url(base: baseURL, path: request.path, query: request.queryParameters)

        var head = URLRequest(url: url)
        if let timeout { head.timeoutInterval = timeout }
        head.httpMethod = request.method.rawValue
        var headers: [(String, String)] = [("Content-Type", request.contentType)]
        let payload: RequestPayload
        if let form = request.multipartData {
            guard let data = form.encodedData() else { throw NetworkError.invalidMultipartEncoding }
            payload = .data(data)
            headers.append(("Content-Type", form.contentType))
        } else if let body = request.body {
            payload = try Self.payload(of: body, encoder: request.jsonEncoder)
            headers.append(("Content-Type", body.contentType))
        } else {
            payload = .empty
        }
        if let extra = request.headers {
            headers += extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        func isSet(_ name: String) -> Bool {
            headers.contains { $0.0.caseInsensitiveCompare(name) == .orderedSame }
        }
        // EKNetwork sends JSON's Accept unless the request names its own.
        if !isSet("Accept") { headers.append(("Accept", "application/json")) }
        if let userAgent, !isSet("User-Agent") { headers.append(("User-Agent", userAgent)) }

        var built = TransportRequest(head: head, payload: payload, progress: request.progress)
        for (name, value) in headers {
            try built.setHeader(name, value)
        }
        return built
    }

    private static func payload(of body: RequestBody, encoder: JSONEncoder) throws -> RequestPayload {
        switch body.content {
        case .encodable(let value): .data(try encoder.encode(value))
        case .raw(let data): .data(data)
        case .stream(let stream): .stream(stream)
        case .formURLEncoded(let fields): .data(Data(FormURLEncoding.encode(fields).utf8))
        }
    }
}

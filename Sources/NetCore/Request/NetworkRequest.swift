import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetMultipart

/// A request to an HTTP API: where it goes, what it carries and how its answer is decoded.
///
/// Only `path`, `method` and `Response` are required; everything else has a default.
///
/// ```swift
/// struct SignInRequest: NetworkRequest {
///     typealias Response = Session
///     let email: String
///     let password: String
///     var path: String { "/auth/sign-in" }
///     var method: HTTPMethod { .post }
///     var body: RequestBody? { RequestBody(encodable: ["email": email, "password": password]) }
/// }
/// ```
///
/// Declare `typealias Response` explicitly: the defaults for ``EmptyResponse`` and ``StatusCodeResponse`` are
/// chosen by the type the compiler sees, and an inferred one can pick the wrong default.
public protocol NetworkRequest {
    /// The type the response body decodes into.
    associatedtype Response: Decodable

    /// The path appended to the base URL. It may not contain a `..` segment, a query or a fragment.
    var path: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// Extra headers. Names and values with CR, LF or NUL are rejected. Defaults to `nil`.
    var headers: [String: String]? { get }
    /// Query parameters, merged after any query the base URL already has, sorted by name. Defaults to `nil`.
    var queryParameters: [String: String]? { get }
    /// The `Content-Type` sent with a multipart-free body that does not name its own. Defaults to `application/json`.
    var contentType: String { get }
    /// The request body. Defaults to `nil`.
    var body: RequestBody? { get }
    /// A multipart form to upload; exclusive with `body`. Defaults to `nil`.
    var multipartData: MultipartFormData? { get }
    /// Receives upload (or, without a body, download) progress. Defaults to `nil`.
    var progress: NetworkProgress? { get }
    /// How failed attempts are retried. Defaults to `RetryPolicy()` (no retries).
    var retryPolicy: RetryPolicy { get }
    /// Turns a non-2xx payload into your own error; `nil` (or a `nil` result) throws ``HTTPError``. Defaults to `nil`.
    var errorDecoder: ((Data) -> (any Error)?)? { get }
    /// Whether a 401 may refresh the token and retry, and failures may be retried. Defaults to `true`.
    var allowsRetry: Bool { get }
    /// Builds the value for a successful response with an empty body. Defaults to `nil`
    /// (``EmptyResponse`` and ``StatusCodeResponse`` provide one).
    var emptyResponseHandler: ((HTTPURLResponse) throws -> Response)? { get }
    /// The decoder for JSON responses. Defaults to `JSONDecoder()`.
    var jsonDecoder: JSONDecoder { get }
    /// The encoder for JSON bodies. Defaults to `JSONEncoder()`.
    var jsonEncoder: JSONEncoder { get }
    /// Whether a manager's global `responseDecoderProvider` may decode this request's response. Defaults to `true`.
    var allowsResponseDecoderOverride: Bool { get }
    /// The longest the whole request may take — every attempt, every retry wait, the token refresh — before it
    /// fails with `URLError(.timedOut)`. Defaults to `nil`: the manager's `requestTimeout`, if any.
    var timeout: Duration? { get }
    /// Plugins for this request only; they run after the manager's plugins of the same priority. Defaults to none.
    var plugins: [any Plugin] { get }
    /// Whether sending the request twice has the same effect as sending it once, so that the retry policy may
    /// repeat it. Defaults to the method's own answer (GET, HEAD, PUT, DELETE, OPTIONS, TRACE: yes; POST, PATCH,
    /// CONNECT: no). An `Idempotency-Key` header makes any request repeatable too.
    var isIdempotent: Bool { get }

    /// Decodes a successful response. The default handles empty bodies and JSON.
    func decodeResponse(data: Data, response: URLResponse) throws -> Response
    /// Decodes a successful response with a decoder chosen by the manager (its `responseDecoderProvider`).
    /// The default treats empty bodies like ``decodeResponse(data:response:)`` and decodes JSON with `decoder`.
    func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Response
}

extension NetworkRequest {
    /// No extra headers.
    public var headers: [String: String]? { nil }
    /// No query parameters.
    public var queryParameters: [String: String]? { nil }
    /// `application/json`.
    public var contentType: String { "application/json" }
    /// No body.
    public var body: RequestBody? { nil }
    /// No multipart form.
    public var multipartData: MultipartFormData? { nil }
    /// No progress reporting.
    public var progress: NetworkProgress? { nil }
    /// No retries.
    public var retryPolicy: RetryPolicy { RetryPolicy() }
    /// Non-2xx responses throw ``HTTPError``.
    public var errorDecoder: ((Data) -> (any Error)?)? { nil }
    /// Retries and token refresh are allowed.
    public var allowsRetry: Bool { true }
    /// An empty body throws ``NetworkError/emptyResponse``.
    public var emptyResponseHandler: ((HTTPURLResponse) throws -> Response)? { nil }
    /// A plain `JSONDecoder`.
    public var jsonDecoder: JSONDecoder { JSONDecoder() }
    /// A plain `JSONEncoder`.
    public var jsonEncoder: JSONEncoder { JSONEncoder() }
    /// The global decoder may be used.
    public var allowsResponseDecoderOverride: Bool { true }
    /// No timeout of its own.
    public var timeout: Duration? { nil }
    /// No plugins of its own.
    public var plugins: [any Plugin] { [] }
    /// The method's idempotency.
    public var isIdempotent: Bool { method.isIdempotent }

    /// An empty body goes to `emptyResponseHandler` (or throws ``NetworkError/emptyResponse``); anything else
    /// is decoded as JSON with `jsonDecoder`.
    public func decodeResponse(data: Data, response: URLResponse) throws -> Response {
        try decodeResponse(data: data, response: response, decoder: jsonDecoder)
    }

    /// The default decoding with a given decoder: what `NetworkManager` uses for its global decoder.
    public func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Response {
        if data.isEmpty {
            guard let handler = emptyResponseHandler else { throw NetworkError.emptyResponse }
            guard let response = response as? HTTPURLResponse else { throw NetworkError.invalidResponse }
            return try handler(response)
        }
        return try decoder.decode(Response.self, from: data)
    }
}

extension NetworkRequest where Response == EmptyResponse {
    /// Returns ``EmptyResponse``.
    public var emptyResponseHandler: ((HTTPURLResponse) throws -> EmptyResponse)? { { _ in EmptyResponse() } }

    /// Ignores the payload: success is the status code.
    public func decodeResponse(data: Data, response: URLResponse) throws -> EmptyResponse { EmptyResponse() }

    /// Ignores the payload and the decoder.
    public func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> EmptyResponse {
        EmptyResponse()
    }
}

extension NetworkRequest where Response == StatusCodeResponse {
    /// Copies the status code and headers.
    public var emptyResponseHandler: ((HTTPURLResponse) throws -> StatusCodeResponse)? {
        { StatusCodeResponse($0) }
    }

    /// Copies the status code and headers, whatever the body.
    public func decodeResponse(data: Data, response: URLResponse) throws -> StatusCodeResponse {
        guard let response = response as? HTTPURLResponse else { throw NetworkError.invalidResponse }
        return StatusCodeResponse(response)
    }

    /// Copies the status code and headers; the decoder is not needed.
    public func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> StatusCodeResponse {
        try decodeResponse(data: data, response: response)
    }
}

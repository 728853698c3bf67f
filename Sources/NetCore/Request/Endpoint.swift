#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request to an HTTP API — where it goes, what it carries, how its answer is decoded — in NetKit's own types,
/// for the engine (``RequestExecutor``) on any transport.
///
/// Only `path`, `method` and `Response` are required; everything else has a default.
///
/// ```swift
/// struct GetUser: Endpoint {
///     typealias Response = User
///     let id: Int
///     var path: String { "/users/\(id)" }
///     var method: HTTPMethod { .get }
/// }
/// let user = try await executor.send(GetUser(id: 42), baseURL: api)
/// ```
///
/// `NetworkRequest` (EKNetwork's protocol, in the `NetKit` module) refines it with EKNetwork's Foundation-typed
/// hooks (`decodeResponse(data:response:)`, `emptyResponseHandler`, `multipartData`); `Endpoint` itself names no
/// Foundation networking type, so a program built on NetCore without URLSession links no libcurl.
///
/// Declare `typealias Response` explicitly: the defaults for ``EmptyResponse`` and ``StatusCodeResponse`` are
/// chosen by the type the compiler sees, and an inferred one can pick the wrong default.
public protocol Endpoint {
    /// The type the response body decodes into.
    associatedtype Response: Decodable

    /// The path appended to the base URL. It may not contain a `..` segment, a query or a fragment.
    var path: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// Extra headers. Names and values with CR, LF or NUL are rejected. Defaults to `nil`.
    var headers: [String: String]? { get }
    /// Header fields sent after ``headers``, in order; a name may repeat (each field is sent). A name given here
    /// replaces the same name from ``headers`` and NetKit's defaults. Defaults to none.
    var headerFields: HTTPHeaderFields { get throws }
    /// Query parameters, merged after any query the base URL already has, sorted by name. Defaults to `nil`.
    var queryParameters: [String: String]? { get }
    /// The `Content-Type` sent unless the body names its own. Defaults to `application/json`.
    var contentType: String { get }
    /// The request body. Defaults to `nil`.
    var body: RequestBody? { get }
    /// Receives upload (or, without a body, download) progress. Defaults to `nil`.
    var progress: NetworkProgress? { get }
    /// How failed attempts are retried. Defaults to `RetryPolicy()` (no retries).
    var retryPolicy: RetryPolicy { get }
    /// Turns a non-2xx payload into your own error; `nil` (or a `nil` result) throws ``HTTPError``. Defaults to `nil`.
    var errorDecoder: ((Data) -> (any Error)?)? { get }
    /// Whether a 401 may refresh the token and retry, and failures may be retried. Defaults to `true`.
    var allowsRetry: Bool { get }
    /// The decoder for JSON responses. Defaults to `JSONDecoder()`.
    var jsonDecoder: JSONDecoder { get }
    /// The encoder for JSON bodies. Defaults to `JSONEncoder()`.
    var jsonEncoder: JSONEncoder { get }
    /// Whether a global decoder (a manager's `responseDecoderProvider`) may decode this request's response.
    /// Defaults to `true`.
    var allowsResponseDecoderOverride: Bool { get }
    /// The longest the whole request may take — every attempt, every retry wait, the token refresh — before it
    /// fails with ``TransportError/Kind/timedOut``. Defaults to `nil`: the engine's `defaultTimeout`, if any.
    var timeout: Duration? { get }
    /// Plugins for this request only; they run after the engine's plugins of the same priority. Defaults to none.
    var plugins: [any Plugin] { get }
    /// Whether sending the request twice has the same effect as sending it once, so that the retry policy may
    /// repeat it. Defaults to the method's own answer (GET, HEAD, PUT, DELETE, OPTIONS, TRACE: yes; POST, PATCH,
    /// CONNECT: no). An `Idempotency-Key` header makes any request repeatable too.
    var isIdempotent: Bool { get }

    /// The body to send: ``body`` by default. Override it to build a body that can fail (`NetworkRequest` joins
    /// `body` and `multipartData` here).
    func makeBody() throws -> RequestBody?

    /// Decodes a successful response.
    ///
    /// The default decodes JSON with `decoder` (or ``jsonDecoder`` when it is `nil`) and throws
    /// ``NetworkError/emptyResponse`` for an empty body; ``EmptyResponse`` ignores the body and
    /// ``StatusCodeResponse`` copies the status and headers.
    /// - Parameters:
    ///   - response: The response: head, body (``ReceivedResponse/body``) and URL.
    ///   - decoder: A global decoder the engine was given (`responseDecoderProvider`), when the request allows it.
    func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response
}

extension Endpoint {
    /// No extra headers.
    public var headers: [String: String]? { nil }
    /// No header fields.
    public var headerFields: HTTPHeaderFields { HTTPHeaderFields() }
    /// No query parameters.
    public var queryParameters: [String: String]? { nil }
    /// `application/json`.
    public var contentType: String { "application/json" }
    /// No body.
    public var body: RequestBody? { nil }
    /// No progress reporting.
    public var progress: NetworkProgress? { nil }
    /// No retries.
    public var retryPolicy: RetryPolicy { RetryPolicy() }
    /// Non-2xx responses throw ``HTTPError``.
    public var errorDecoder: ((Data) -> (any Error)?)? { nil }
    /// Retries and token refresh are allowed.
    public var allowsRetry: Bool { true }
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

    /// ``body``.
    public func makeBody() throws -> RequestBody? { body }

    /// JSON, with `decoder` or ``jsonDecoder``; an empty body throws ``NetworkError/emptyResponse``.
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response {
        guard let data = response.body, !data.isEmpty else { throw NetworkError.emptyResponse }
        return try (decoder ?? jsonDecoder).decode(Response.self, from: data)
    }
}

extension Endpoint where Response == EmptyResponse {
    /// Ignores the payload: success is the status code.
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> EmptyResponse {
        EmptyResponse()
    }
}

extension Endpoint where Response == StatusCodeResponse {
    /// Copies the status code and headers, whatever the body.
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> StatusCodeResponse {
        StatusCodeResponse(response.head)
    }
}

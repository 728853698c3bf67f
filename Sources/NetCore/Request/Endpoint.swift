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
///
/// ## Response kinds
///
/// `Response` says what the default decoding makes of a successful body; no `decode` override is needed for any of
/// these:
/// - any `Decodable`: JSON, decoded with the request's decoder; an empty body throws ``NetworkError/emptyResponse``;
/// - ``JSONValue``: any JSON, untyped;
/// - `Data`: the body's bytes (an empty body is `Data()`);
/// - `String`: the body as text in the charset of its `Content-Type`, UTF-8 when it names none (an empty body is
///   `""`; bytes that are not text in it throw ``ResponseDecodingError/undecodableText(charset:)``);
/// - ``EmptyResponse``: the body is ignored; ``StatusCodeResponse``: the status and headers;
/// - `ImageResponse` (Apple platforms): the body's bytes, checked to be an image, with a `UIImage`/`NSImage`.
///
/// ``responseKeyPath`` decodes `Response` from a value inside a JSON body (`["data", "users"]`) instead.
///
/// ## Server error models
///
/// Name a `Decodable & Error` type as ``errorModel`` (or the engine's `errorModel`) and a failed response whose body
/// decodes as it throws ``ServerError`` with it and the status code; ``decodesErrorModelOnSuccess`` looks for it in
/// successful bodies too, before `Response`.
public protocol Endpoint {
    /// The type the response body decodes into.
    associatedtype Response: Decodable

    /// The path appended to the base URL. It may not contain a `..` segment, a query or a fragment.
    var path: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// The method as sent: ``method``'s by default. Return another RFC 9110 token to send a method ``HTTPMethod``
    /// lacks (WebDAV's `PROPFIND`, `QUERY`, `PURGE`); every decision the engine makes about the method (retries,
    /// redirects, the cache) then follows this one.
    var requestMethod: HTTPRequestMethod { get }
    /// Extra headers. Names and values with CR, LF or NUL are rejected. Defaults to `nil`.
    var headers: [String: String]? { get }
    /// Header fields sent after ``headers``, in order; a name may repeat (each field is sent). A name given here
    /// replaces the same name from ``headers`` and NetKit's defaults. Defaults to none.
    var headerFields: HTTPHeaderFields { get throws }
    /// The URL the path is appended to instead of the engine's (the manager's or configuration's base URL), for a
    /// request to another host or API version. The same checks apply to it. Defaults to `nil`: the engine's.
    var baseURL: URL? { get }
    /// Query parameters, merged after any query the base URL already has, sorted by name. Defaults to `nil`.
    var queryParameters: [String: String]? { get }
    /// Query items sent after the base URL's query and ``queryParameters``, in this order; a name may repeat
    /// (`tag=a&tag=b`). Names and values are percent-encoded like ``queryParameters`` (`+ & = space` too); an item
    /// with a `nil` value is sent as its name alone. Defaults to `nil`.
    var queryItems: [URLQueryItem]? { get }
    /// The `Content-Type` sent unless the body names its own. Defaults to `application/json`.
    var contentType: String { get }
    /// The request body. Defaults to `nil`.
    var body: RequestBody? { get }
    /// Receives upload (or, without a body, download) progress. Defaults to `nil`.
    var progress: NetworkProgress? { get }
    /// How failed attempts are retried. Defaults to the engine's default retry policy (a `NetworkConfiguration`'s
    /// `retryPolicy`) while the engine sends the request, `RetryPolicy()` (no retries) when it has none. A request
    /// that implements this property keeps its own policy, whatever the engine's default.
    var retryPolicy: RetryPolicy { get }
    /// Turns a non-2xx payload into your own error; `nil` (or a `nil` result) throws the ``errorModel``'s
    /// ``ServerError`` when the payload decodes as it, ``HTTPError`` otherwise. Defaults to `nil`.
    var errorDecoder: ((Data) -> (any Error)?)? { get }
    /// The type of the error object the server sends with a failure (NetworkKit's `errorProcessorType`): a non-2xx
    /// body that decodes as it (with the request's decoder) throws ``ServerError`` carrying the decoded value and the
    /// status code; one that does not throws ``HTTPError``, never a `DecodingError`. An ``errorDecoder`` that returns
    /// an error wins; a 401 stays ``NetworkError/unauthorized``. Defaults to `nil`: the engine's `errorModel`, if any.
    ///
    /// Declare it with this exact type, or the default stays in use: `var errorModel: (any (Decodable & Error).Type)? { APIError.self }`.
    var errorModel: (any (Decodable & Error).Type)? { get }
    /// Whether a 2xx body is tried as the ``errorModel`` (the request's, or the engine's) before it is decoded as
    /// `Response`, for servers that answer 200 with an error object: a body that decodes as the model throws
    /// ``ServerError`` with the 2xx status. Choose a model with a required field, or every object decodes as it.
    /// The check is made when the request or the engine asks for it. Defaults to `false`.
    var decodesErrorModelOnSuccess: Bool { get }
    /// The member names leading to the value `Response` is decoded from, in a JSON body: `["data", "users"]` for
    /// `{"data": {"users": [...]}}`. A member that is absent throws ``ResponseDecodingError/missingKey(key:path:)``
    /// (`No value at key "users" of response key path data/users`). With a key path the body is JSON whatever the
    /// kind: a `String` is a JSON string at the path, `Data` follows the decoder's `dataDecodingStrategy`. Names are the
    /// body's (a decoder's `keyDecodingStrategy` finds its renamed spelling too). Defaults to `nil`: the whole body.
    var responseKeyPath: [String]? { get }
    /// Whether a 401 may refresh the token and retry, and failures may be retried. Defaults to `true`.
    var allowsRetry: Bool { get }
    /// The decoder for JSON responses.
    ///
    /// Which decoder decodes a response, first match wins:
    /// 1. a manager's `responseDecoderProvider` (EKNetwork's global decoder), unless the request opts out with
    ///    ``allowsResponseDecoderOverride``;
    /// 2. this property, when the request implements it: the request's own decoder wins over the defaults;
    /// 3. the engine's default decoder (a `NetworkConfiguration`'s `defaultDecoder`), which the default
    ///    implementation returns while the engine sends the request;
    /// 4. `JSONDecoder()`.
    var jsonDecoder: JSONDecoder { get }
    /// The encoder for JSON bodies (``RequestBody/init(encodable:contentType:)``). A request that implements it
    /// keeps its own; the default implementation returns the engine's default encoder (a `NetworkConfiguration`'s
    /// `defaultEncoder`) while the engine sends the request, `JSONEncoder()` otherwise.
    var jsonEncoder: JSONEncoder { get }
    /// Whether a global decoder (a manager's `responseDecoderProvider`) may decode this request's response.
    /// Defaults to `true`.
    var allowsResponseDecoderOverride: Bool { get }
    /// The longest the whole request may take — every attempt, every retry wait, the token refresh — before it
    /// fails with ``TransportError/Kind/timedOut``. Defaults to `nil`: the engine's `defaultTimeout`, if any.
    var timeout: Duration? { get }
    /// The longest wait for the next byte — of the head, or of a body while it streams — before the request fails
    /// with ``TransportError/Kind/timedOut``: for streams that stay open with no end in sight (server-sent events),
    /// where a whole-request ``timeout`` would end a healthy stream. Measured by NetKit to the millisecond. Defaults
    /// to `nil`: the engine's (``RequestBuilder/idleTimeout``), if any, and the transport's own.
    var idleTimeout: Duration? { get }
    /// How this request's connection is made (TLS, the proxy, the HTTP version), replacing the engine's
    /// ``RequestExecutor/Configuration/connection`` as a whole. Defaults to `nil`: the engine's.
    var connection: ConnectionSettings? { get }
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
    /// The default decodes by the kind of `Response` (see "Response kinds" above): JSON with `decoder` (or
    /// ``jsonDecoder`` when it is `nil`), at ``responseKeyPath`` when there is one, throwing
    /// ``NetworkError/emptyResponse`` for an empty body; `Data` and `String` from the bytes; ``EmptyResponse``
    /// ignores the body and ``StatusCodeResponse`` copies the status and headers.
    /// - Parameters:
    ///   - response: The response: head, body (``ReceivedResponse/body``) and URL.
    ///   - decoder: A global decoder the engine was given (`responseDecoderProvider`), when the request allows it.
    func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response
}

extension Endpoint {
    /// No extra headers.
    public var headers: [String: String]? {
        EndpointDefaults.noteDefault("headers")
        return nil
    }
    /// No header fields.
    public var headerFields: HTTPHeaderFields {
        EndpointDefaults.noteDefault("headerFields")
        return HTTPHeaderFields()
    }
    /// The engine's base URL.
    public var baseURL: URL? {
        EndpointDefaults.noteDefault("baseURL")
        return nil
    }
    /// No query parameters.
    public var queryParameters: [String: String]? {
        EndpointDefaults.noteDefault("queryParameters")
        return nil
    }
    /// No query items.
    public var queryItems: [URLQueryItem]? {
        EndpointDefaults.noteDefault("queryItems")
        return nil
    }
    /// `application/json`.
    public var contentType: String {
        EndpointDefaults.noteDefault("contentType")
        return "application/json"
    }
    /// No body.
    public var body: RequestBody? {
        EndpointDefaults.noteDefault("body")
        return nil
    }
    /// No progress reporting.
    public var progress: NetworkProgress? {
        EndpointDefaults.noteDefault("progress")
        return nil
    }
    /// The engine's default retry policy while it sends the request; otherwise none.
    public var retryPolicy: RetryPolicy {
        EndpointDefaults.noteDefault("retryPolicy")
        return EndpointDefaults.retryPolicy
    }
    /// Non-2xx responses throw ``HTTPError``.
    public var errorDecoder: ((Data) -> (any Error)?)? {
        EndpointDefaults.noteDefault("errorDecoder")
        return nil
    }
    /// The engine's error model, if any.
    public var errorModel: (any (Decodable & Error).Type)? {
        EndpointDefaults.noteDefault("errorModel")
        return nil
    }
    /// Successful bodies are tried as the error model only when the engine asks for it.
    public var decodesErrorModelOnSuccess: Bool {
        EndpointDefaults.noteDefault("decodesErrorModelOnSuccess")
        return false
    }
    /// The whole body.
    public var responseKeyPath: [String]? {
        EndpointDefaults.noteDefault("responseKeyPath")
        return nil
    }
    /// Retries and token refresh are allowed.
    public var allowsRetry: Bool {
        EndpointDefaults.noteDefault("allowsRetry")
        return true
    }
    /// The engine's default decoder while it sends the request; otherwise a plain `JSONDecoder`.
    public var jsonDecoder: JSONDecoder {
        EndpointDefaults.noteDefault("jsonDecoder")
        return EndpointDefaults.decoder
    }
    /// The engine's default encoder while it sends the request; otherwise a plain `JSONEncoder`.
    public var jsonEncoder: JSONEncoder {
        EndpointDefaults.noteDefault("jsonEncoder")
        return EndpointDefaults.encoder
    }
    /// The global decoder may be used.
    public var allowsResponseDecoderOverride: Bool {
        EndpointDefaults.noteDefault("allowsResponseDecoderOverride")
        return true
    }
    /// No timeout of its own.
    public var timeout: Duration? {
        EndpointDefaults.noteDefault("timeout")
        return nil
    }
    /// No idle timeout of its own.
    public var idleTimeout: Duration? {
        EndpointDefaults.noteDefault("idleTimeout")
        return nil
    }
    /// The engine's connection settings.
    public var connection: ConnectionSettings? {
        EndpointDefaults.noteDefault("connection")
        return nil
    }
    /// No plugins of its own.
    public var plugins: [any Plugin] {
        EndpointDefaults.noteDefault("plugins")
        return []
    }
    /// ``method``.
    public var requestMethod: HTTPRequestMethod {
        EndpointDefaults.noteDefault("requestMethod")
        return HTTPRequestMethod(method)
    }
    /// The idempotency of ``requestMethod``.
    public var isIdempotent: Bool {
        EndpointDefaults.noteDefault("isIdempotent")
        return requestMethod.isIdempotent
    }

    /// ``body``.
    public func makeBody() throws -> RequestBody? { body }

    /// By the kind of `Response`: `Data`, `String` (an empty body is an empty value), or JSON with `decoder` or
    /// ``jsonDecoder``, at ``responseKeyPath`` when there is one (an empty body throws ``NetworkError/emptyResponse``).
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response {
        try ResponseDecoding.decode(
            Response.self, from: response, keyPath: responseKeyPath, decoder: decoder ?? jsonDecoder)
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

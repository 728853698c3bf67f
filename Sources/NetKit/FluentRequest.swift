import Foundation

extension NetworkManager {
    /// Starts a one-off request to `path` without declaring a request type: chain what it needs, end with what you
    /// want back.
    ///
    /// ```swift
    /// let users = try await manager.request("/users").query("page", "2").header("X-Trace", "1").decode([User].self)
    /// let created = try await manager.request("/users").method(.post).body(NewUser(name: "ann")).decode(User.self)
    /// ```
    ///
    /// It takes the road of ``send(_:accessToken:)``: the same checks, plugins, retries, token refresh and logging.
    public func request(_ path: String) -> FluentRequest {
        FluentRequest(manager: self, path: path)
    }
}

/// A one-off request described step by step (``NetworkManager/request(_:)``), sent by one of its endings:
/// ``decode(_:)``, ``data()``, ``string()``, ``json()`` or ``response()``.
///
/// A value: every step returns a changed copy, so a partly built request can be kept and reused.
/// Nothing is checked until an ending sends it; then a bad path, header or body fails with the error a request
/// type would get (``NetworkError/invalidURL``, ``NetworkError/invalidHeader(name:)``, …) before anything is sent.
public struct FluentRequest: Sendable {
    private let manager: NetworkManager
    private var parts: Parts

    init(manager: NetworkManager, path: String) {
        self.manager = manager
        self.parts = Parts(path: path)
    }

    /// The HTTP method; GET unless set.
    public func method(_ method: HTTPMethod) -> FluentRequest {
        changed { $0.method = method }
    }

    /// Adds the query item `name=value`, after those added before; a name may repeat (`tag=a&tag=b`). Both are
    /// percent-encoded (`+ & = space` too); a `nil` value sends the name alone.
    public func query(_ name: String, _ value: String?) -> FluentRequest {
        changed { $0.queryItems.append(URLQueryItem(name: name, value: value)) }
    }

    /// Adds the header field `name: value`, after those added before; a name may repeat, each field is sent. A name
    /// given here replaces NetKit's default for it (`Accept`, `User-Agent`) and the manager's default headers.
    public func header(_ name: String, _ value: String) -> FluentRequest {
        changed { $0.headers.append((name, value)) }
    }

    /// The body: `value` encoded as JSON by ``encoder(_:)``'s encoder, else the manager's default encoder.
    public func body(_ value: some Encodable & Sendable) -> FluentRequest {
        changed { $0.body = RequestBody(encodable: value) }
    }

    /// The body: bytes sent as they are, with `contentType`.
    public func body(_ data: Data, contentType: String = "application/octet-stream") -> FluentRequest {
        changed { $0.body = RequestBody(data: data, contentType: contentType) }
    }

    /// The body: any ``RequestBody`` (a form, a file, a stream, multipart…).
    public func body(_ body: RequestBody) -> FluentRequest {
        changed { $0.body = body }
    }

    /// The longest the whole request may take, all attempts and retry waits included; then it fails with
    /// `URLError(.timedOut)`. Unless set, the manager's ``NetworkManager/defaultTimeout``.
    public func timeout(_ timeout: Duration) -> FluentRequest {
        changed { $0.timeout = timeout }
    }

    /// How failed attempts are retried (transient failures of idempotent methods; see ``RetryPolicy``). Unless set,
    /// the manager's ``NetworkManager/defaultRetryPolicy``.
    public func retry(_ policy: RetryPolicy) -> FluentRequest {
        changed { $0.retryPolicy = policy }
    }

    /// The token sent as `Authorization: Bearer`, read before every attempt (on no particular thread); a 401 refreshes
    /// it through the manager's ``NetworkManager/tokenRefresher``.
    public func accessToken(_ token: @escaping @Sendable () -> String?) -> FluentRequest {
        changed { $0.accessToken = token }
    }

    /// A fixed token sent as `Authorization: Bearer`.
    public func accessToken(_ token: String) -> FluentRequest {
        accessToken { token }
    }

    /// The URL the path is appended to instead of the manager's base URL.
    public func baseURL(_ url: URL) -> FluentRequest {
        changed { $0.baseURL = url }
    }

    /// The encoder of a value given to `body(_:)` instead of the manager's default encoder.
    public func encoder(_ encoder: JSONEncoder) -> FluentRequest {
        changed { $0.encoder = encoder }
    }

    /// The decoder of ``decode(_:)`` and ``json()`` instead of the manager's default decoder (and its
    /// `responseDecoderProvider`).
    public func decoder(_ decoder: JSONDecoder) -> FluentRequest {
        changed { $0.decoder = decoder }
    }

    /// Sends the request and decodes its JSON body as `type`. `Data` and `String` are read as ``data()`` and
    /// ``string()`` read them, and ``EmptyResponse`` ignores the body.
    /// - Throws: the errors of ``NetworkManager/send(_:accessToken:)``; ``NetworkError/emptyResponse`` for an empty
    ///   body where JSON was expected.
    nonisolated(nonsending) public func decode<T: Decodable>(_ type: T.Type = T.self) async throws -> T {
        try await manager.send(call(T.self), accessToken: parts.accessToken)
    }

    /// Sends the request and returns its body's bytes, empty for an empty body.
    nonisolated(nonsending) public func data() async throws -> Data {
        try await decode(Data.self)
    }

    /// Sends the request and returns its body as text, in the charset its `Content-Type` names (UTF-8 when it names
    /// none).
    /// - Throws: also ``ResponseDecodingError`` for a charset NetKit cannot decode or bytes that are not text in it.
    nonisolated(nonsending) public func string() async throws -> String {
        try await decode(String.self)
    }

    /// Sends the request and returns its JSON body as untyped ``JSONValue``.
    nonisolated(nonsending) public func json() async throws -> JSONValue {
        try await decode(JSONValue.self)
    }

    /// Sends the request and returns its body's bytes with the response's status, headers and NetKit's measurements.
    nonisolated(nonsending) public func response() async throws -> NetworkResponse<Data> {
        try await manager.response(for: call(Data.self), accessToken: parts.accessToken)
    }

    private func changed(_ change: (inout Parts) -> Void) -> FluentRequest {
        var copy = self
        change(&copy.parts)
        return copy
    }

    private func call<Response: Decodable>(_ type: Response.Type) -> Call<Response> {
        Call(parts: parts)
    }

    /// What the steps collected.
    private struct Parts: Sendable {
        var path: String
        var method = HTTPMethod.get
        var queryItems: [URLQueryItem] = []
        var headers: [(name: String, value: String)] = []
        var body: RequestBody?
        var timeout: Duration?
        var retryPolicy: RetryPolicy?
        var accessToken: (@Sendable () -> String?)?
        var baseURL: URL?
        var encoder: JSONEncoder?
        var decoder: JSONDecoder?
    }

    /// The request the steps describe, as the engine takes it.
    private struct Call<Response: Decodable>: Endpoint {
        let parts: Parts

        var path: String { parts.path }
        var method: HTTPMethod { parts.method }
        var baseURL: URL? { parts.baseURL }
        var queryItems: [URLQueryItem]? { parts.queryItems }
        var body: RequestBody? { parts.body }
        var timeout: Duration? { parts.timeout }
        var retryPolicy: RetryPolicy { parts.retryPolicy ?? EndpointDefaults.retryPolicy }
        var jsonEncoder: JSONEncoder { parts.encoder ?? EndpointDefaults.encoder }
        var jsonDecoder: JSONDecoder { parts.decoder ?? EndpointDefaults.decoder }
        var allowsResponseDecoderOverride: Bool { parts.decoder == nil }
        var headerFields: HTTPHeaderFields {
            get throws { try HTTPHeaderFields(parts.headers) }
        }

        func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response {
            if Response.self == Data.self { return (response.body ?? Data()) as! Response }
            if Response.self == String.self {
                return try ResponseText.decode(
                    response.body ?? Data(), contentType: response.value(forHeader: "Content-Type")) as! Response
            }
            if Response.self == EmptyResponse.self { return EmptyResponse() as! Response }
            guard let data = response.body, !data.isEmpty else { throw NetworkError.emptyResponse }
            return try (decoder ?? jsonDecoder).decode(Response.self, from: data)
        }
    }
}

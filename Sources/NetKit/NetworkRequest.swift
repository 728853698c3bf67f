import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock

/// A request to an HTTP API, as EKNetwork declares it: where it goes, what it carries and how its answer is
/// decoded.
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
/// It refines NetCore's ``Endpoint`` with EKNetwork's Foundation-typed hooks: ``multipartData``,
/// ``emptyResponseHandler`` and the two `decodeResponse` methods, which receive an `HTTPURLResponse` as EKNetwork
/// gives them one. Request types that need none of these can adopt ``Endpoint`` instead, on NetCore alone.
///
/// Declare `typealias Response` explicitly: the defaults for ``EmptyResponse`` and ``StatusCodeResponse`` are
/// chosen by the type the compiler sees, and an inferred one can pick the wrong default.
///
/// ## Response kinds
///
/// The default `decodeResponse` decodes by the kind of `Response`; none of these needs an override:
///
/// | `Response` | what you get | an empty body |
/// | --- | --- | --- |
/// | a `Decodable` type | JSON decoded with `jsonDecoder` (or the manager's `responseDecoderProvider`) | `emptyResponseHandler`, else ``NetworkError/emptyResponse`` |
/// | ``JSONValue`` | any JSON, untyped | the same |
/// | `Data` | the body's bytes | `Data()` |
/// | `String` | the text, in the charset of `Content-Type` (UTF-8 when it names none) | `""` |
/// | ``EmptyResponse`` | nothing: the status says it all | ``EmptyResponse`` |
/// | ``StatusCodeResponse`` | the status code and headers | the same |
/// | `ImageResponse` (Apple platforms) | the bytes, checked to be an image, and its `UIImage`/`NSImage` | ``ResponseDecodingError/notAnImage(contentType:)`` |
///
/// ```swift
/// struct Readme: NetworkRequest {
///     typealias Response = String
///     var path: String { "/README.md" }
///     var method: HTTPMethod { .get }
/// }
///
/// struct ListUsers: NetworkRequest {        // {"data": {"users": [...]}}
///     typealias Response = [User]
///     var path: String { "/users" }
///     var method: HTTPMethod { .get }
///     var responseKeyPath: [String]? { ["data", "users"] }
/// }
/// ```
///
/// Text that is not valid in its charset throws ``ResponseDecodingError/undecodableText(charset:)``; a key path
/// member that is absent, ``ResponseDecodingError/missingKey(key:path:)``. A server's error objects decode into
/// your own type with ``Endpoint/errorModel`` (thrown as ``ServerError``).
public protocol NetworkRequest: Endpoint {
    /// A multipart form to upload; exclusive with `body`. Defaults to `nil`.
    var multipartData: MultipartFormData? { get }
    /// Builds the value for a successful response with an empty body. Defaults to `nil`
    /// (``EmptyResponse`` and ``StatusCodeResponse`` provide one).
    var emptyResponseHandler: ((HTTPURLResponse) throws -> Response)? { get }

    /// Decodes a successful response. The default decodes by the kind of `Response` (see "Response kinds" above):
    /// JSON at `responseKeyPath` or whole, `Data`, `String`, and empty bodies.
    func decodeResponse(data: Data, response: URLResponse) throws -> Response
    /// Decodes a successful response with a decoder chosen by the manager (its `responseDecoderProvider`).
    /// The default decodes like ``decodeResponse(data:response:)``, JSON with `decoder`.
    func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Response
}

extension NetworkRequest {
    /// No multipart form.
    public var multipartData: MultipartFormData? {
        EndpointDefaults.noteDefault("multipartData")
        return nil
    }
    /// An empty body throws ``NetworkError/emptyResponse``.
    public var emptyResponseHandler: ((HTTPURLResponse) throws -> Response)? { nil }

    /// By the kind of `Response`, JSON with `jsonDecoder`: an empty body goes to `emptyResponseHandler` when there is
    /// one; otherwise it is `Data()` or `""` for those kinds and throws ``NetworkError/emptyResponse`` for JSON.
    public func decodeResponse(data: Data, response: URLResponse) throws -> Response {
        DefaultDecoding.note(.json, plain: true, in: Self.self, response: response)
        return try decodeResponse(data: data, response: response, decoder: jsonDecoder)
    }

    /// The default decoding with a given decoder: what `NetworkManager` uses for its global decoder.
    public func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Response {
        DefaultDecoding.note(.json, plain: false, in: Self.self, response: response)
        if data.isEmpty, let handler = emptyResponseHandler {
            guard let response = response as? HTTPURLResponse else { throw NetworkError.invalidResponse }
            return try handler(response)
        }
        return try ResponseDecoding.decode(
            Response.self,
            body: data,
            contentType: (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"),
            keyPath: responseKeyPath,
            decoder: decoder
        )
    }

    /// `body`, or the ``multipartData`` form (never both).
    /// - Throws: ``NetworkError/conflictingBodyTypes`` when both are set, ``NetworkError/invalidMultipartEncoding``
    ///   for a form that cannot be encoded.
    public func makeBody() throws -> RequestBody? {
        let body = self.body
        guard let form = multipartData else { return body }
        if body != nil { throw NetworkError.conflictingBodyTypes }
        return try RequestBody(multipart: form)
    }

    /// EKNetwork's decoding: ``decodeResponse(data:response:)``, or ``decodeResponse(data:response:decoder:)`` with
    /// the manager's global decoder, given the response as an `HTTPURLResponse`.
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response {
        try decodeAsEKNetwork(response, decoder: decoder)
    }

    /// Calls the request's `decodeResponse` (its own, or the default) with an `HTTPURLResponse`, built here only
    /// and only when something asks for one: the road below the facade speaks NetKit's own types.
    ///
    /// Building an `HTTPURLResponse` costs more than the rest of a request (about 10 µs on Linux, where it parses
    /// and recases every field), and NetKit's own `decodeResponse` reads it only for an empty body. So a request
    /// type whose `decodeResponse` is NetKit's JSON or ``EmptyResponse`` default is decoded here directly, as that
    /// default would decode it, and gets an `HTTPURLResponse` only for its `emptyResponseHandler`; a type that
    /// brings its own `decodeResponse` (or a ``StatusCodeResponse``) gets one on every response, as its signature
    /// asks. Which implementation a type's `decodeResponse` resolves to is learned from its first response (see
    /// ``DefaultDecoding``).
    func decodeAsEKNetwork(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response {
        let known = DefaultDecoding.implementations(of: Self.self)
        switch decoder == nil ? known.plain : known.withDecoder {
        case .json? where decoder != nil || known.withDecoder == .json:
            return try decodeAsDefault(response, decoder: decoder ?? jsonDecoder)
        case .empty?:
            if let value = EmptyResponse() as? Response { return value }
        default:
            break
        }
        guard let url = response.url, let head = HTTPURLResponse(response.head, url: url) else {
            throw NetworkError.invalidResponse
        }
        let data = response.body ?? Data()
        guard known.needsProbe(withDecoder: decoder != nil) else {
            if let decoder { return try decodeResponse(data: data, response: head, decoder: decoder) }
            return try decodeResponse(data: data, response: head)
        }
        let probe = DefaultDecoding.Probe(type: Self.self, response: head)
        defer { DefaultDecoding.learn(from: probe, calledWithDecoder: decoder != nil) }
        return try DefaultDecoding.$probe.withValue(probe) {
            if let decoder { return try decodeResponse(data: data, response: head, decoder: decoder) }
            return try decodeResponse(data: data, response: head)
        }
    }

    /// What the default `decodeResponse` does, without the `HTTPURLResponse` it reads only for an empty body's
    /// `emptyResponseHandler`: every kind (JSON, key path, `Data`, `String`) takes this road.
    private func decodeAsDefault(_ response: ReceivedResponse, decoder: JSONDecoder) throws -> Response {
        // The response a caller built without a URL could not become an `HTTPURLResponse`: it stays refused.
        if case .url(nil) = response.origin { throw NetworkError.invalidResponse }
        if response.body?.isEmpty ?? true, let handler = emptyResponseHandler {
            guard let url = response.url, let head = HTTPURLResponse(response.head, url: url) else {
                throw NetworkError.invalidResponse
            }
            return try handler(head)
        }
        return try ResponseDecoding.decode(Response.self, from: response, keyPath: responseKeyPath, decoder: decoder)
    }
}

extension NetworkRequest where Response == EmptyResponse {
    /// Returns ``EmptyResponse``.
    public var emptyResponseHandler: ((HTTPURLResponse) throws -> EmptyResponse)? { { _ in EmptyResponse() } }

    /// Ignores the payload: success is the status code.
    public func decodeResponse(data: Data, response: URLResponse) throws -> EmptyResponse {
        DefaultDecoding.note(.empty, plain: true, in: Self.self, response: response)
        return EmptyResponse()
    }

    /// Ignores the payload and the decoder.
    public func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> EmptyResponse {
        DefaultDecoding.note(.empty, plain: false, in: Self.self, response: response)
        return EmptyResponse()
    }

    /// EKNetwork's decoding, as for any other response type (a request may still override `decodeResponse`).
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> EmptyResponse {
        try decodeAsEKNetwork(response, decoder: decoder)
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

    /// EKNetwork's decoding, as for any other response type (a request may still override `decodeResponse`).
    public func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> StatusCodeResponse {
        try decodeAsEKNetwork(response, decoder: decoder)
    }
}

/// Which of NetKit's own `decodeResponse` implementations each request type's `decodeResponse` requirements resolve
/// to: the record that lets ``NetworkRequest/decode(_:decoder:)`` skip the `HTTPURLResponse` that only a request's
/// own `decodeResponse` (or an `emptyResponseHandler`) reads.
///
/// Swift offers no way to ask whether a type replaced a protocol requirement's default, so the defaults say it
/// themselves: the first response of a type is decoded through its `decodeResponse` with a real `HTTPURLResponse`
/// and a ``Probe`` naming the type and that response; each default that runs with both notes itself. A default
/// runs with `Self` the probed type only when it is that type's implementation (a type's own `decodeResponse`
/// hides the default from every caller), so what a probe records is a fact about the type and is kept for the
/// process's life. A requirement whose default did not run is the type's own, and keeps getting an
/// `HTTPURLResponse`.
enum DefaultDecoding {
    /// A `decodeResponse` implementation of NetKit's.
    enum Implementation: Sendable, Equatable {
        /// The JSON default: an empty body goes to `emptyResponseHandler`, anything else to the decoder.
        case json
        /// ``EmptyResponse``'s: ignores the payload.
        case empty
        /// The type's own (or ``StatusCodeResponse``'s, which reads the `HTTPURLResponse`).
        case other
    }

    /// What is known of one type: the implementation of `decodeResponse(data:response:)` (`plain`) and of
    /// `decodeResponse(data:response:decoder:)`, `nil` while unknown.
    struct Implementations: Sendable {
        var plain: Implementation?
        var withDecoder: Implementation?

        /// Whether the next call of the requirement in use could teach something.
        func needsProbe(withDecoder: Bool) -> Bool {
            withDecoder ? self.withDecoder == nil : plain == nil || (plain == .json && self.withDecoder == nil)
        }
    }

    /// One learning call: the type whose `decodeResponse` is called and the response it is given.
    final class Probe: Sendable {
        let type: ObjectIdentifier
        let response: HTTPURLResponse
        let seen = Lock(Implementations())

        init<T>(type: T.Type, response: HTTPURLResponse) {
            self.type = ObjectIdentifier(type)
            self.response = response
        }
    }

    /// The probe of the decoding running on this task, if it is a learning one.
    @TaskLocal static var probe: Probe?

    private static let known = Lock<[ObjectIdentifier: Implementations]>([:])

    /// What is known of `type`.
    static func implementations<T>(of type: T.Type) -> Implementations {
        known.withLock { $0[ObjectIdentifier(type)] } ?? Implementations()
    }

    /// Called by each default `decodeResponse`: records it when it runs for the probed type and response.
    static func note<T>(_ implementation: Implementation, plain: Bool, in type: T.Type, response: URLResponse) {
        guard let probe, probe.type == ObjectIdentifier(type), probe.response === response else { return }
        probe.seen.withLock { seen in
            if plain { seen.plain = implementation } else { seen.withDecoder = implementation }
        }
    }

    /// Keeps what `probe` saw. The requirement NetKit called is the type's own when no default noted itself; the
    /// JSON default of `decodeResponse(data:response:)` always calls the other, which is then the type's own too
    /// when its default did not note itself.
    static func learn(from probe: Probe, calledWithDecoder: Bool) {
        var seen = probe.seen.withLock { $0 }
        if calledWithDecoder {
            seen.withDecoder = seen.withDecoder ?? .other
        } else {
            seen.plain = seen.plain ?? .other
            if seen.plain == .json { seen.withDecoder = seen.withDecoder ?? .other }
        }
        known.withLock { known in
            var entry = known[probe.type] ?? Implementations()
            entry.plain = entry.plain ?? seen.plain
            entry.withDecoder = entry.withDecoder ?? seen.withDecoder
            known[probe.type] = entry
        }
    }
}

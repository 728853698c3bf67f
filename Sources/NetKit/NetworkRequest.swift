import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
public protocol NetworkRequest: Endpoint {
    /// A multipart form to upload; exclusive with `body`. Defaults to `nil`.
    var multipartData: MultipartFormData? { get }
    /// Builds the value for a successful response with an empty body. Defaults to `nil`
    /// (``EmptyResponse`` and ``StatusCodeResponse`` provide one).
    var emptyResponseHandler: ((HTTPURLResponse) throws -> Response)? { get }

    /// Decodes a successful response. The default handles empty bodies and JSON.
    func decodeResponse(data: Data, response: URLResponse) throws -> Response
    /// Decodes a successful response with a decoder chosen by the manager (its `responseDecoderProvider`).
    /// The default treats empty bodies like ``decodeResponse(data:response:)`` and decodes JSON with `decoder`.
    func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Response
}

extension NetworkRequest {
    /// No multipart form.
    public var multipartData: MultipartFormData? { nil }
    /// An empty body throws ``NetworkError/emptyResponse``.
    public var emptyResponseHandler: ((HTTPURLResponse) throws -> Response)? { nil }

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

    /// Calls the request's `decodeResponse` (its own, or the default) with an `HTTPURLResponse`, which is built here
    /// only: the road below the facade speaks NetKit's own types.
    func decodeAsEKNetwork(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> Response {
        guard let url = response.url, let head = HTTPURLResponse(response.head, url: url) else {
            throw NetworkError.invalidResponse
        }
        let data = response.body ?? Data()
        if let decoder { return try decodeResponse(data: data, response: head, decoder: decoder) }
        return try decodeResponse(data: data, response: head)
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

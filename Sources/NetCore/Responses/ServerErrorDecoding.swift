#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request's server error model (its own `errorModel`, or the engine's) with the decoder that reads it: turns a
/// body that decodes as the model into a ``ServerError``, and any other body into nothing, so that the caller falls
/// back to ``HTTPError`` (or to decoding the success model) rather than surfacing a `DecodingError`.
struct ServerErrorDecoding: Sendable {
    /// The error model type.
    package let model: any (Decodable & Error).Type
    /// The decoder the request would decode its `Response` with.
    package let decoder: JSONDecoder

    package init(model: any (Decodable & Error).Type, decoder: JSONDecoder) {
        self.model = model
        self.decoder = decoder
    }

    /// The ``ServerError`` for a response with `head` and `body`, or `nil` when the body is empty, cut short, or does
    /// not decode as the model.
    package func error(head: HTTPResponseHead, body: Data?, isTruncated: Bool = false) -> ServerError? {
        guard let body, !body.isEmpty, !isTruncated, let decoded = try? decode(model, from: body) else { return nil }
        return ServerError(statusCode: head.statusCode, model: decoded, headers: head.headerFields.dictionary)
    }

    private func decode<Model: Decodable & Error>(_ model: Model.Type, from body: Data) throws -> any Error {
        try decoder.decode(Model.self, from: body)
    }
}

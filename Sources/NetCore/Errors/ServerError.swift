#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response the server marked as a failure with an error object of a type you named (a request's or the engine's
/// `errorModel`), decoded: NetworkKit's server error models.
///
/// Thrown for a non-2xx response whose body decodes as the model (a body that does not is an ``HTTPError``, never a
/// `DecodingError`), and for a 2xx body that decodes as it when `decodesErrorModelOnSuccess` asks for that check.
///
/// ```swift
/// struct APIError: Decodable, Error { let code: String; let message: String }
///
/// do {
///     _ = try await manager.send(SignUp(email: email))       // its `errorModel` is `APIError.self`
/// } catch let error as ServerError {
///     if let api = error.model(as: APIError.self) { show(api.message) }
///     print(error.statusCode)
/// }
/// ```
public struct ServerError: LocalizedError, Sendable, CustomStringConvertible {
    /// The response's status code (2xx when the error object came inside a successful response).
    public let statusCode: Int
    /// The decoded error object, a value of the error model type.
    public let model: any Error
    /// The response headers (repeated names joined, see ``HTTPHeaderFields/dictionary``).
    public let headers: [String: String]

    /// Creates an error from a status code, the decoded model and the response headers.
    public init(statusCode: Int, model: any Error, headers: [String: String]) {
        self.statusCode = statusCode
        self.model = model
        self.headers = headers
    }

    /// The model as `type`, or `nil` when it is of another type.
    public func model<Model: Error>(as type: Model.Type) -> Model? {
        model as? Model
    }

    /// A header's value, matching the name case-insensitively.
    public func value(forHeader name: String) -> String? {
        headers.value(forCaseInsensitiveKey: name)
    }

    /// The model's own `errorDescription` when it is a `LocalizedError` with one (the server's message, ready to
    /// show); otherwise `Request failed with status code <statusCode>`, as ``HTTPError`` words it.
    public var errorDescription: String? {
        (model as? any LocalizedError)?.errorDescription ?? "Request failed with status code \(statusCode)"
    }

    /// `HTTP <status>: server error <model type>`: the status and the model's type, never header values or the
    /// model's fields, which may hold secrets.
    public var description: String {
        "HTTP \(statusCode): server error \(String(describing: type(of: model)))"
    }
}

extension ServerError: CustomReflectable {
    /// The error as `dump` and debuggers show it: the status, the model's type (never its fields, which may hold
    /// secrets, as ``description`` says), and the headers with the values of credentials hidden.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "statusCode": statusCode, "model": String(describing: type(of: model)),
                "headers": HeaderRedaction.redactedLines(headers),
            ])
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A successful response whose body is not the kind of value the request's `Response` asks for, found before or
/// instead of JSON decoding (which reports its own failures as `DecodingError`).
///
/// ```swift
/// do {
///     let users = try await executor.send(ListUsers(), baseURL: api)   // responseKeyPath ["data", "users"]
/// } catch let error as ResponseDecodingError {
///     print(error)   // No value at key "users" of response key path data/users
/// }
/// ```
public enum ResponseDecodingError: Error, Sendable, Equatable {
    /// The JSON body has no member `key` where the request's `responseKeyPath` (`path`) leads.
    case missingKey(key: String, path: [String])
    /// The value at `key` of `path` (the body itself when `key` is `nil`) is not a JSON object, so the key path
    /// cannot go on.
    case notAnObject(key: String?, path: [String])
    /// The body of a `String` response is not valid text in `charset` (from `Content-Type`, or `utf-8`).
    case undecodableText(charset: String)
    /// The `Content-Type` of a `String` response names a charset NetKit cannot decode.
    case unsupportedCharset(String)
    /// The body of an image response is not an image the platform can decode.
    case notAnImage(contentType: String?)
    /// A response kind that is read from the body's bytes (an image) was asked for inside JSON, at a key path or
    /// through a decoder.
    case notJSONDecodable(type: String)
}

extension ResponseDecodingError: LocalizedError, CustomStringConvertible {
    /// A sentence that names what was expected and where.
    public var description: String {
        switch self {
        case .missingKey(let key, let path):
            "No value at key \"\(key)\" of response key path \(path.joined(separator: "/"))"
        case .notAnObject(let key?, let path):
            "The value at key \"\(key)\" of response key path \(path.joined(separator: "/")) is not a JSON object"
        case .notAnObject(nil, let path):
            "The response body is not a JSON object, so response key path \(path.joined(separator: "/")) cannot be followed"
        case .undecodableText(let charset):
            "The response body is not valid \(charset) text"
        case .unsupportedCharset(let charset):
            "The response's charset \"\(HeaderValidation.printable(charset))\" is not one NetKit can decode"
        case .notAnImage(let contentType?):
            "The response body (\(HeaderValidation.printable(contentType))) is not an image this platform can decode"
        case .notAnImage(nil):
            "The response body is not an image this platform can decode"
        case .notJSONDecodable(let type):
            "\(type) is read from a response body's bytes and cannot be decoded from JSON"
        }
    }

    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}

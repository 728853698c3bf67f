#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors NetKit reports itself, as opposed to errors of the transport or of the server.
///
/// The first six cases are EKNetwork's; the others name failures EKNetwork had no word for. Every
/// validation error is thrown before a byte is sent.
public enum NetworkError: Error, Sendable, Equatable {
    /// The URL could not be built: a path with a `..` segment (also percent-encoded), a scheme, a query or
    /// fragment, control characters, or a base URL without scheme and host.
    case invalidURL
    /// The multipart form could not be encoded: a line break or NUL in a name, filename or MIME type, or a
    /// part whose data contains the boundary.
    case invalidMultipartEncoding
    /// The server sent an empty body where a value was expected and the request has no `emptyResponseHandler`.
    case emptyResponse
    /// The server answered 401 and the request could not (or may not) recover by refreshing the token.
    case unauthorized
    /// The response was not an HTTP response.
    case invalidResponse
    /// The request sets both `body` and `multipartData`.
    case conflictingBodyTypes
    /// A header name is not an RFC 9110 token, or a name or value contains CR, LF or NUL; or a framing header
    /// contradicts the body: a `Content-Length` other than the body's size, or a `Transfer-Encoding` (NetKit
    /// frames every body itself).
    case invalidHeader(name: String)
    /// A response body was larger than the limit NetKit holds in memory for it.
    case responseTooLarge(limitBytes: Int)
    /// A request body stream was already read by an earlier send; a stream can be sent once (bodies of
    /// memory and files can be sent any number of times).
    case uploadStreamConsumed
}

extension NetworkError: LocalizedError, CustomStringConvertible {
    /// A sentence that names the failure; never includes header values, which may be secrets.
    public var description: String {
        switch self {
        case .invalidURL: "The request URL is invalid."
        case .invalidMultipartEncoding: "The multipart form could not be encoded."
        case .emptyResponse: "The response body was empty."
        case .unauthorized: "The server rejected the request's credentials (401)."
        case .invalidResponse: "The response was not an HTTP response."
        case .conflictingBodyTypes: "The request sets both body and multipartData."
        case .invalidHeader(let name): "The header \"\(HeaderValidation.printable(name))\" is invalid."
        case .responseTooLarge(let limit): "The response body exceeded \(limit) bytes."
        case .uploadStreamConsumed: "The request body stream was already sent once."
        }
    }

    /// The same sentence as ``description``, so `localizedDescription` reads well on every platform.
    public var errorDescription: String? { description }
}

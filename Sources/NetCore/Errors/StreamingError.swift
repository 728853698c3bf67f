#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a streamed response could not be opened or read to its end.
///
/// The first two cases are EKNetwork's; the others name the limits NetKit puts on streamed bodies so that
/// memory stays bounded whatever the server sends. A stream that fails with one of these ends with it: it
/// never ends cleanly after breaking.
public enum StreamingError: Error, Sendable, Equatable {
    /// The response was not an HTTP response.
    case invalidResponse
    /// A non-2xx response's body grew past the cap NetKit reads for diagnostics (1 MiB by default).
    case errorPayloadTooLarge(limitBytes: Int)
    /// A consumer fell so far behind a transport that cannot pause the sender that the bytes waiting for it
    /// passed the limit.
    case bufferLimitExceeded(limitBytes: Int)
    /// A line (of text or NDJSON), or one server-sent event's data, grew past the limit.
    case lineTooLong(limitBytes: Int)
    /// An event source got a response whose `Content-Type` is not `text/event-stream` (`nil`: no
    /// `Content-Type` at all).
    case unexpectedContentType(String?)
}

extension StreamingError: CustomStringConvertible {
    /// A sentence that names the failure and the limit involved.
    public var description: String {
        switch self {
        case .invalidResponse:
            "The response was not an HTTP response."
        case .errorPayloadTooLarge(let limit):
            "The error response's body exceeded \(limit) bytes."
        case .bufferLimitExceeded(let limit):
            "The stream's consumer fell behind: more than \(limit) bytes were waiting to be read."
        case .lineTooLong(let limit):
            "A line or event in the stream exceeded \(limit) bytes."
        case .unexpectedContentType(let contentType?):
            "Expected a text/event-stream response, got Content-Type \"\(HeaderValidation.printable(contentType))\"."
        case .unexpectedContentType(nil):
            "Expected a text/event-stream response, got no Content-Type."
        }
    }
}

extension StreamingError: LocalizedError {
    /// The same sentence as ``description``, for `localizedDescription` and UI alerts.
    public var errorDescription: String? { description }
}

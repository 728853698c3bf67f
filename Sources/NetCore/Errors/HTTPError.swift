import Foundation

/// A response whose status code is not 2xx, with its payload for diagnostics.
///
/// NetKit throws it when the request's `errorDecoder` is `nil` or returns `nil` for the payload.
public struct HTTPError: LocalizedError, Sendable, Equatable {
    /// The response's status code.
    public let statusCode: Int
    /// The response body (at most the error-payload limit).
    public let data: Data
    /// The response headers.
    public let headers: [String: String]

    /// Creates an error from a status code, payload and headers.
    public init(statusCode: Int, data: Data, headers: [String: String]) {
        self.statusCode = statusCode
        self.data = data
        self.headers = headers
    }

    /// A header's value, matching the name case-insensitively.
    public func value(forHeader name: String) -> String? {
        headers.value(forCaseInsensitiveKey: name)
    }

    /// `Request failed with status code <statusCode>`.
    public var errorDescription: String? {
        "Request failed with status code \(statusCode)"
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response whose status code is not 2xx, with its payload for diagnostics.
///
/// NetKit throws it when the request's `errorDecoder` is `nil` or returns `nil` for the payload.
/// `print(error)` shows the status and a short prefix of the body with secret-looking fields hidden
/// (`HTTP 404: {"error": "todo 42 does not exist"}`); `localizedDescription` stays EKNetwork's sentence.
public struct HTTPError: LocalizedError, Sendable, Equatable, CustomStringConvertible {
    /// The response's status code.
    public let statusCode: Int
    /// The response body, or its first bytes when ``isTruncated`` (the error-payload limit, 1 MiB by default).
    public let data: Data
    /// The response headers.
    public let headers: [String: String]
    /// Whether the body was longer than the error-payload limit and `data` holds only its beginning.
    public let isTruncated: Bool

    /// Creates an error from a status code, payload and headers.
    public init(statusCode: Int, data: Data, headers: [String: String], isTruncated: Bool = false) {
        self.statusCode = statusCode
        self.data = data
        self.headers = headers
        self.isTruncated = isTruncated
    }

    /// A header's value, matching the name case-insensitively.
    public func value(forHeader name: String) -> String? {
        headers.value(forCaseInsensitiveKey: name)
    }

    /// `Request failed with status code <statusCode>`, as EKNetwork words it.
    public var errorDescription: String? {
        "Request failed with status code \(statusCode)"
    }

    /// `HTTP <status>: <first bytes of the body>`, secret-looking fields hidden, `(truncated)` when cut short.
    public var description: String {
        let body = LogRedaction.bodyPrefix(data)
        var text = "HTTP \(statusCode)"
        if !body.isEmpty { text += ": \(body)" }
        if isTruncated { text += " (truncated)" }
        return text
    }
}

extension HTTPError: CustomReflectable {
    /// The error as `dump` and debuggers show it: the status, the body's first bytes with secret-looking fields
    /// hidden (as ``description`` shows them), and the headers with the values of credentials (`Set-Cookie`,
    /// `Authentication-Info`, secret-looking names) hidden.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "statusCode": statusCode, "data": LogRedaction.bodyPrefix(data),
                "headers": HeaderRedaction.redactedLines(headers), "isTruncated": isTruncated,
            ])
    }
}

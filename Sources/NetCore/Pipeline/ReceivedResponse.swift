import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as plugins see it: the head, and the body when NetKit has read it.
public struct ReceivedResponse: Sendable {
    /// Status, headers and URL.
    public let head: HTTPURLResponse
    /// The body read into memory: the whole body for `send`, at most the error-payload limit of a failed
    /// response; `nil` for a successful `stream`, whose body goes to the caller unread, and for a 401 that
    /// NetKit answers by refreshing the credential.
    public let body: Data?
    /// Whether ``body`` holds only the beginning of a longer body.
    public let isBodyTruncated: Bool

    /// Creates a response.
    public init(head: HTTPURLResponse, body: Data?, isBodyTruncated: Bool = false) {
        self.head = head
        self.body = body
        self.isBodyTruncated = isBodyTruncated
    }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The response headers.
    public var headers: [String: String] { head.stringHeaders }

    /// A header's value, matching the name case-insensitively.
    public func value(forHeader name: String) -> String? {
        head.value(forHTTPHeaderField: name)
    }
}

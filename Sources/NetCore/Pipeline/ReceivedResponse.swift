#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response as plugins and decoding see it: the head, the body when NetKit has read it, and the URL that
/// answered.
public struct ReceivedResponse: Sendable {
    /// Status, reason and header fields.
    public let head: HTTPResponseHead
    /// The body read into memory: the whole body for `send`, at most the error-payload limit of a failed
    /// response; `nil` for a successful `stream`, whose body goes to the caller unread, and for a 401 that
    /// NetKit answers by refreshing the credential.
    public let body: Data?
    /// Whether ``body`` holds only the beginning of a longer body.
    public let isBodyTruncated: Bool
    /// The HTTP version the response came over (`HTTP/1.1`, `HTTP/2`); `nil` when the transport cannot tell.
    public internal(set) var protocolVersion: HTTPProtocolVersion?
    /// Where the URL comes from: parsed only when someone asks for it.
    package let origin: ResponseOrigin

    /// Creates a response.
    public init(head: HTTPResponseHead, body: Data?, isBodyTruncated: Bool = false, url: URL? = nil) {
        self.head = head
        self.body = body
        self.isBodyTruncated = isBodyTruncated
        self.origin = .url(url)
    }

    /// A response to `request`, answered from `url` when a redirect moved it.
    package init(head: HTTPResponseHead, body: Data?, isBodyTruncated: Bool, url: URL?, request: HTTPRequestHead) {
        self.head = head
        self.body = body
        self.isBodyTruncated = isBodyTruncated
        self.origin = ResponseOrigin(redirectedTo: url, request: request)
    }

    /// The URL that answered: the request's, or where redirects led.
    public var url: URL? { origin.url }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The response headers (repeated names joined, see ``HTTPHeaderFields/dictionary``).
    public var headers: [String: String] { head.headerFields.dictionary }

    /// The response's header fields, repeated ones apart.
    public var headerFields: HTTPHeaderFields { head.headerFields }

    /// A header's value, matching the name case-insensitively.
    public func value(forHeader name: String) -> String? {
        head.headerFields.value(for: name)
    }
}

extension ReceivedResponse: CustomReflectable {
    /// The response as `dump` and debuggers show it: the head (secret header values hidden), the body's first bytes
    /// with secret-looking fields hidden, and the URL with query values hidden; never the request it answers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "head": head, "body": body.map { LogRedaction.bodyPrefix($0) } as Any,
                "isBodyTruncated": isBodyTruncated, "url": LogRedaction.url(url),
            ])
    }
}

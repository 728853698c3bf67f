import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as a transport returns it: the head as soon as it arrives, the body as it streams in.
public struct TransportResponse: Sendable {
    /// Status, headers and URL.
    public let head: HTTPURLResponse
    /// The body, not yet read.
    public let body: ResponseBody

    /// Creates a response from a head and a body.
    public init(head: HTTPURLResponse, body: ResponseBody) {
        self.head = head
        self.body = body
    }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The `Content-Length` the server declared, if any.
    public var declaredLength: Int64? {
        head.expectedContentLength >= 0 ? head.expectedContentLength : nil
    }
}

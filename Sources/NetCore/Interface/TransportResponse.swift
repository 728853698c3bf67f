#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response as a transport returns it: the head as soon as it arrives, the body as it streams in.
public struct TransportResponse: Sendable {
    /// Status, reason and header fields.
    public var head: HTTPResponseHead
    /// The body, not yet read.
    public var body: ResponseBody
    /// The URL that answered, when redirects moved the request elsewhere; `nil` when it is the request's own.
    public var url: URL?
    /// When the head arrived: what `RequestMetrics.responseHead` reports, also when the transport hands the
    /// response over later (with the body complete, see ``TransportRequest/wholeBody``).
    public var headReceivedAt: ContinuousClock.Instant {
        get { headArrival.instant }
        set { headArrival = MonotonicInstant(newValue) }
    }
    /// The HTTP version the response came over; `nil` when the transport cannot tell (URLSession on Linux, whose
    /// libcurl keeps it to itself).
    public var protocolVersion: HTTPProtocolVersion?
    /// ``headReceivedAt``, stored as a value of known size (see ``MonotonicInstant``).
    package var headArrival: MonotonicInstant

    /// Creates a response from a head and a body.
    public init(
        head: HTTPResponseHead, body: ResponseBody, url: URL? = nil, headReceivedAt: ContinuousClock.Instant = .now
    ) {
        self.init(head: head, body: body, url: url, headArrival: MonotonicInstant(headReceivedAt))
    }

    /// Creates a response whose head arrived at `headArrival`.
    package init(head: HTTPResponseHead, body: ResponseBody, url: URL? = nil, headArrival: MonotonicInstant) {
        self.head = head
        self.body = body
        self.url = url
        self.headArrival = headArrival
    }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The `Content-Length` the server declared, if any.
    public var declaredLength: Int64? { head.declaredContentLength }
}

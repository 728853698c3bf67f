#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One attempt's result as it travels back through the stages: the request as sent, the response, and the
/// body when a stage has read it.
package struct Exchange: Sendable {
    /// The request as the transport received it.
    package var request: TransportRequest
    /// The response; its body is unread unless ``data`` holds it.
    package var response: TransportResponse
    /// The body read into memory (all of it for `send`; a failed response's first bytes for `stream`).
    package var data: Data?
    /// Whether ``data`` is only the beginning of the body.
    package var isTruncated: Bool
    /// Whether the response came from the response cache rather than from the transport.
    package var isFromCache = false

    package init(request: TransportRequest, response: TransportResponse, data: Data? = nil, isTruncated: Bool = false) {
        self.request = request
        self.response = response
        self.data = data
        self.isTruncated = isTruncated
    }

    /// The response as plugins see it.
    package var received: ReceivedResponse {
        var received = ReceivedResponse(
            head: response.head, body: data, isBodyTruncated: isTruncated, url: response.url, request: request.head)
        received.protocolVersion = response.protocolVersion
        return received
    }
}

/// What makes two requests identical for coalescing: method, target and every header field in order (the
/// credential and cookies included, since they are header fields by then), and the transfer's idle timeout.
package struct CoalescingKey: Sendable, Hashable {
    package var method: HTTPMethod
    package var scheme: String
    package var authority: String
    package var path: String
    package var headerFields: HTTPHeaderFields
    package var idleTimeout: Duration?

    /// The key of `request`, or `nil` when it may not share a call: only `GET` and `HEAD` without a body may.
    package init?(_ request: TransportRequest) {
        guard request.method == .get || request.method == .head, request.body == nil else { return nil }
        method = request.method
        scheme = request.head.scheme.lowercased()
        authority = request.head.authority.lowercased()
        path = request.head.path
        headerFields = request.head.headerFields
        idleTimeout = request.idleTimeout
    }
}

/// What makes two requests identical for coalescing: method, target and every header field in order (the
/// credential and cookies included, since they are header fields by then) except correlation fields, the
/// transfer's idle timeout, and whose the request is (``CredentialPartition``: the transport, the cookie jar and
/// the credential values).
///
/// Correlation fields (``TransportRequest/isCorrelationHeader(_:)``: a request ID, W3C or B3 trace context) are
/// left out, so that `RequestIDPlugin` or a tracing plugin, which give every request its own, do not keep every
/// request apart; a field that carries a credential is never one of them.
package struct CoalescingKey: Sendable, Hashable {
    package var method: HTTPRequestMethod
    package var scheme: String
    package var authority: String
    package var path: String
    package var headerFields: HTTPHeaderFields
    package var idleTimeout: Duration?
    package var connection: ConnectionSettings?
    package var partition: CredentialPartition

    /// The key of `request` of `partition`, or `nil` when it may not share a call: only `GET` and `HEAD` without a
    /// body may. The partition is only worked out for those.
    package init?(_ request: TransportRequest, partition: () -> CredentialPartition) {
        guard request.method == .get || request.method == .head, request.body == nil else { return nil }
        method = request.method
        scheme = request.head.scheme.lowercased()
        authority = request.head.authority.lowercased()
        path = request.head.path
        let fields = request.head.headerFields
        headerFields =
            fields.contains(where: { request.isCorrelationHeader($0.name) })
            ? HTTPHeaderFields(fields.filter { !request.isCorrelationHeader($0.name) }) : fields
        idleTimeout = request.idleTimeout
        connection = request.connection
        self.partition = partition()
    }
}

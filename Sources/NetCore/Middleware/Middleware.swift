/// A step between the request builder and the transport: it may change the request, inspect or replace the
/// response, or call `next` more than once (retry, authentication).
///
/// ```swift
/// struct RequestID: Middleware {
///     func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
///         var request = request
///         try request.setHeader("X-Request-ID", UUID().uuidString)
///         return try await next(request)
///     }
/// }
/// ```
public protocol Middleware: Sendable {
    /// The rest of the chain: the following middlewares, then the transport.
    typealias Next = @Sendable (TransportRequest) async throws -> TransportResponse

    /// Handles `request`, usually by passing it (changed or not) to `next`.
    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse
}

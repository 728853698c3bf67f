import NetCore

/// Sends `Authorization: Bearer <token>` with a token read before every attempt.
///
/// Both a plugin (register it on a manager, or return it from a request's `plugins`) and a middleware (for a
/// ``MiddlewareChain`` without the engine):
///
/// ```swift
/// let bearer = BearerTokenMiddleware { await session.accessToken }
/// let executor = RequestExecutor(transport: URLSessionTransport(), plugins: [bearer])
/// ```
public struct BearerTokenMiddleware: Middleware, Plugin {
    private let token: @Sendable () async throws -> String?

    /// Reads the token from `token`; `nil` or empty sends no header.
    public init(token: @escaping @Sendable () async throws -> String?) {
        self.token = token
    }

    /// Adds the header, then sends.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        var request = request
        try await apply(to: &request)
        return try await next(request)
    }

    /// Adds the header to each attempt.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        try await apply(to: &request)
    }

    private func apply(to request: inout TransportRequest) async throws {
        if let token = try await token(), !token.isEmpty {
            try request.setHeader("Authorization", "Bearer \(token)")
        }
    }
}

import NetCore

/// Sends `Authorization: Bearer <token>` with a token read before every attempt.
///
/// ```swift
/// let bearer = BearerTokenMiddleware { await session.accessToken }
/// let executor = RequestExecutor(transport: MiddlewareChain([bearer], transport: URLSessionTransport()))
/// ```
public struct BearerTokenMiddleware: Middleware {
    private let token: @Sendable () async throws -> String?

    /// Reads the token from `token`; `nil` or empty sends no header.
    public init(token: @escaping @Sendable () async throws -> String?) {
        self.token = token
    }

    /// Adds the header, then sends.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        var request = request
        if let token = try await token(), !token.isEmpty {
            try request.setHeader("Authorization", "Bearer \(token)")
        }
        return try await next(request)
    }
}

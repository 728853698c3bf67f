import NetCore

/// Sends `Authorization: Bearer <token>` with a token read before every attempt.
///
/// Register it on a manager or an engine, or return it from a request's `plugins`:
///
/// ```swift
/// let bearer = BearerTokenPlugin { await session.accessToken }
/// let executor = RequestExecutor(transport: URLSessionTransport(), plugins: [bearer])
/// ```
///
/// It does not renew a rejected token; for that, give the engine credentials (a `TokenRefreshProvider` on the
/// manager, or ``AuthenticatorCredentials``).
public struct BearerTokenPlugin: Plugin {
    private let token: @Sendable () async throws -> String?

    /// Reads the token from `token`; `nil` or empty sends no header.
    public init(token: @escaping @Sendable () async throws -> String?) {
        self.token = token
    }

    /// Adds the header to each attempt.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        if let token = try await token(), !token.isEmpty {
            try request.setHeader("Authorization", "Bearer \(token)")
        }
    }
}

/// The plugin's name before NetKit had one way to intercept a request.
@available(*, deprecated, renamed: "BearerTokenPlugin")
public typealias BearerTokenMiddleware = BearerTokenPlugin

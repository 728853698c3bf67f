import Foundation
import NetCore

/// Sends HTTP Basic credentials (RFC 7617) with every request: a plugin, and a middleware for a
/// ``MiddlewareChain`` without the engine.
public struct BasicAuthenticationMiddleware: Middleware, Plugin {
    private let headerValue: String

    /// Credentials that cannot be sent: a user-id with a colon, or a control character anywhere.
    public struct InvalidCredentials: Error, Equatable {
        /// Creates the error.
        public init() {}
    }

    /// Prepares the header for `username` and `password` (UTF-8, as RFC 7617 recommends).
    /// - Throws: ``InvalidCredentials`` when the user-id holds a colon or either part a control character.
    public init(username: String, password: String) throws(InvalidCredentials) {
        let hasControl = (username + password).unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        guard !username.contains(":"), !hasControl else { throw InvalidCredentials() }
        headerValue = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// Adds `Authorization: Basic …`, then sends.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        var request = request
        try request.setHeader("Authorization", headerValue)
        return try await next(request)
    }

    /// Adds `Authorization: Basic …` to each attempt.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        try request.setHeader("Authorization", headerValue)
    }
}

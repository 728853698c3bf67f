import Foundation
import NetCore

/// Sends a custom token — an API key — in a header of your choice or as a query item (SmartNetwork's
/// `TokenPlugin`): a plugin, and a middleware for a ``MiddlewareChain`` without the engine.
///
/// ```swift
/// let apiKey = TokenMiddleware(.header(name: "X-API-Key")) { "k-123" }
/// let signed = TokenMiddleware(.queryItem(name: "access_token")) { await store.token }
/// ```
public struct TokenMiddleware: Middleware, Plugin {
    /// Where the token goes.
    public enum Placement: Sendable, Equatable {
        /// In the header `name`, after `prefix` (for example `"Token "`) when given.
        case header(name: String, prefix: String = "")
        /// As the query item `name`, replacing one of the same name.
        case queryItem(name: String)
    }

    /// Where the token goes.
    public let placement: Placement
    private let token: @Sendable () async throws -> String?

    /// Places the token `token` returns; `nil` sends nothing.
    public init(_ placement: Placement, token: @escaping @Sendable () async throws -> String?) {
        self.placement = placement
        self.token = token
    }

    /// Adds the token, then sends.
    /// - Throws: ``NetworkError/invalidHeader(name:)`` for a header token with CR/LF,
    ///   ``NetworkError/invalidURL`` if the URL cannot take the query item.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        var request = request
        try await apply(to: &request)
        return try await next(request)
    }

    /// Adds the token to each attempt.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        try await apply(to: &request)
    }

    private func apply(to request: inout TransportRequest) async throws {
        guard let token = try await token() else { return }
        switch placement {
        case .header(let name, let prefix):
            try request.setHeader(name, prefix + token)
        case .queryItem(let name):
            guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw NetworkError.invalidURL
            }
            let encodedName = PercentEncoding.encodeComponent(name)
            var items = (components.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
            items.removeAll { $0 == encodedName || $0.hasPrefix(encodedName + "=") }
            items.append("\(encodedName)=\(PercentEncoding.encodeComponent(token))")
            components.percentEncodedQuery = items.joined(separator: "&")
            guard let signed = components.url else { throw NetworkError.invalidURL }
            request.head.url = signed
        }
    }
}

import NetCore

/// Sends a custom token — an API key — in a header of your choice or as a query item (SmartNetwork's
/// `TokenPlugin`), with every attempt.
///
/// ```swift
/// let apiKey = TokenPlugin(.header(name: "X-API-Key")) { "k-123" }
/// let signed = TokenPlugin(.queryItem(name: "access_token")) { await store.token }
/// ```
public struct TokenPlugin: Plugin {
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

    /// The header or query item the token goes in: a credential, kept to the engine's `CredentialScope`
    /// and hidden in logs.
    public var credentialFields: CredentialFields {
        switch placement {
        case .header(let name, _): .header(name)
        case .queryItem(let name): .queryItem(PercentEncoding.encodeComponent(name))
        }
    }

    /// Adds the token to each attempt.
    /// - Throws: `NetworkError.invalidHeader(name:)` for a header token with CR, LF or NUL.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        guard let token = try await token() else { return }
        switch placement {
        case .header(let name, let prefix):
            try request.setHeader(name, prefix + token)
        case .queryItem(let name):
            let encodedName = PercentEncoding.encodeComponent(name)
            var items = (request.head.query ?? "").split(separator: "&").map(String.init)
            items.removeAll { $0 == encodedName || $0.hasPrefix(encodedName + "=") }
            items.append("\(encodedName)=\(PercentEncoding.encodeComponent(token))")
            try request.head.setQuery(items.joined(separator: "&"))
        }
    }
}

/// The plugin's name before NetKit had one way to intercept a request.
@available(*, deprecated, renamed: "TokenPlugin")
public typealias TokenMiddleware = TokenPlugin

import NetCore

/// OAuth-style credentials for ``AuthenticatorCredentials``: how to apply one, and how to obtain a fresh one.
///
/// ```swift
/// struct OAuth: Authenticator {
///     struct Credential: Sendable { var access: String; var refresh: String }
///     let client: TokenClient
///     func apply(_ credential: Credential, to request: inout TransportRequest) throws {
///         try request.setHeader("Authorization", "Bearer \(credential.access)")
///     }
///     func refresh(_ credential: Credential) async throws -> Credential {
///         try await client.refresh(credential.refresh)
///     }
/// }
/// ```
public protocol Authenticator: Sendable {
    /// The credential: a token pair, a signing key…
    associatedtype Credential: Sendable

    /// Puts `credential` on `request`.
    func apply(_ credential: Credential, to request: inout TransportRequest) throws

    /// Obtains a fresh credential; called once for any number of concurrent failures.
    func refresh(_ credential: Credential) async throws -> Credential

    /// Whether `response` means the credential was rejected. Defaults to status 401.
    func isAuthenticationFailure(_ response: HTTPResponseHead) -> Bool
}

extension Authenticator {
    /// A 401 means the credential was rejected.
    public func isAuthenticationFailure(_ response: HTTPResponseHead) -> Bool {
        response.statusCode == 401
    }
}

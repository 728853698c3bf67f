import NetCore
import NetKitLock

/// An ``Authenticator``'s credential as the engine's credential stage uses it: applied to every attempt, and
/// renewed once for all concurrent rejections, after which each rejected request is sent once more.
///
/// ```swift
/// let credentials = AuthenticatorCredentials(authenticator: OAuth(client: client), credential: saved)
/// let executor = RequestExecutor(transport: URLSessionTransport())
/// let user = try await executor.response(for: GetUser(), baseURL: api, credentials: credentials).value
/// ```
///
/// It takes the same road as EKNetwork's `accessToken` and `tokenRefresher`: one credential stage, one
/// renewal on 401, never a second handler nested in a middleware.
public final class AuthenticatorCredentials<A: Authenticator>: CredentialProvider {
    /// The authenticator.
    public let authenticator: A
    /// The single-flight renewal behind these credentials.
    public let refreshCoordinator: TokenRefreshCoordinator
    private let store: CredentialStore<A.Credential>

    /// Starts with `credential`.
    /// - Parameters:
    ///   - authenticator: Applies the credential and renews it.
    ///   - credential: The credential the first requests are sent with.
    ///   - policy: The refresh window and timeout.
    ///   - line: Held while a refresh runs, so requests that start meanwhile wait for the new credential.
    public init(
        authenticator: A, credential: A.Credential, policy: TokenRefreshPolicy = TokenRefreshPolicy(),
        line: HoldTheLine? = nil
    ) {
        let store = CredentialStore(credential)
        self.authenticator = authenticator
        self.store = store
        self.refreshCoordinator = TokenRefreshCoordinator(policy: policy, line: line) {
            store.current = try await authenticator.refresh(store.current)
        }
    }

    /// The credential requests are sent with now.
    public var credential: A.Credential {
        get { store.current }
        set { store.current = newValue }
    }

    /// Applies the current credential.
    public func authorize(_ request: inout TransportRequest) async throws {
        try authenticator.apply(credential, to: &request)
    }

    /// The coordinator.
    public var recovery: (any CredentialRecovery)? { refreshCoordinator }

    /// Asks the authenticator.
    public func isRejection(_ response: HTTPResponseHead) -> Bool {
        authenticator.isAuthenticationFailure(response)
    }
}

/// The current credential, shared by the provider and its renewal.
private final class CredentialStore<Credential: Sendable>: Sendable {
    private let value: Lock<Credential>

    init(_ credential: Credential) {
        value = Lock(credential)
    }

    var current: Credential {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

import NetCore
import Synchronization

/// Applies an ``Authenticator``'s credential to every request and, when the credential is rejected,
/// refreshes it once for all concurrent failures and retries each request once.
///
/// Usable with any ``HTTPTransport`` and without `NetworkManager`:
///
/// ```swift
/// let auth = AuthenticationMiddleware(authenticator: OAuth(client: client), credential: saved)
/// let transport = MiddlewareChain([auth], transport: URLSessionTransport())
/// ```
public final class AuthenticationMiddleware<A: Authenticator>: Middleware {
    /// The authenticator.
    public let authenticator: A
    /// The single-flight refresh behind this middleware.
    public let refreshCoordinator: TokenRefreshCoordinator
    private let store: CredentialStore<A.Credential>

    /// Starts with `credential`.
    /// - Parameters:
    ///   - policy: The refresh window.
    ///   - line: Held while a refresh runs, so requests that start meanwhile wait for the new credential.
    public init(authenticator: A, credential: A.Credential, policy: TokenRefreshPolicy = TokenRefreshPolicy(), line: HoldTheLine? = nil) {
        let store = CredentialStore(credential)
        self.authenticator = authenticator
        self.store = store
        self.refreshCoordinator = TokenRefreshCoordinator(policy: policy, line: line) {
            let fresh = try await authenticator.refresh(store.current)
            store.current = fresh
        }
    }

    /// The credential requests are sent with now.
    public var credential: A.Credential {
        get { store.current }
        set { store.current = newValue }
    }

    /// Sends with the current credential; on rejection refreshes (or notices a newer credential) and retries once.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        let generation = await refreshCoordinator.generation()
        var authorized = request
        try authenticator.apply(store.current, to: &authorized)
        let response = try await next(authorized)
        guard authenticator.isAuthenticationFailure(response.head, for: authorized), request.payload.isReplayable
        else { return response }
        if authenticator.isRequest(authorized, authenticatedWith: store.current) {
            do {
                try await refreshCoordinator.recover(fromUnauthorizedAt: generation)
            } catch NetworkError.unauthorized {
                // The refresh's own request was rejected: hand the rejection back instead of waiting for itself.
                return response
            }
        }
        var retried = request
        try authenticator.apply(store.current, to: &retried)
        return try await next(retried)
    }
}

/// The current credential, shared by the middleware and its refresh.
private final class CredentialStore<Credential: Sendable>: Sendable {
    private let value: Mutex<Credential>

    init(_ credential: Credential) {
        value = Mutex(credential)
    }

    var current: Credential {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

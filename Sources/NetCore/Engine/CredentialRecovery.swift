/// What the engine asks when a response rejects the credential (401 unless ``isRejection(_:)`` says otherwise): a
/// fresh credential, shared by every request that needs one.
///
/// NetAuth's `TokenRefreshCoordinator` is the implementation; the engine only knows this seam.
public protocol CredentialRecovery: Sendable {
    /// A number that grows with every refresh attempt that ends; a request remembers the one it was sent under.
    func generation() async -> UInt64

    /// Makes a fresh credential available for a request that got 401 while sent under `generation`.
    ///
    /// Returns at once when a refresh has succeeded since `generation` (throws at once when it failed);
    /// otherwise starts one refresh or joins the one in flight. Throws the refresh's error to every waiter.
    /// Called from inside this recovery's own refresh (the refresher's own request got 401), it throws
    /// ``NetworkError/unauthorized`` instead of waiting for itself.
    func recover(fromUnauthorizedAt generation: UInt64) async throws

    /// Whether a failed response means the credential this recovery renews was rejected: what EKNetwork's bearer
    /// token asks (a ``CredentialProvider`` of your own answers ``CredentialProvider/isRejection(_:)`` itself).
    /// Defaults to status 401.
    func isRejection(_ response: HTTPResponseHead) -> Bool
}

extension CredentialRecovery {
    /// A 401 means the credential was rejected.
    public func isRejection(_ response: HTTPResponseHead) -> Bool {
        response.statusCode == 401
    }
}

/// A ``TokenRefreshProvider`` that also says which access token is current, for the one reader that cannot call
/// `accessToken` again after a renewal.
///
/// `NetworkManager.eventSource(_:accessToken:policy:isolation:)` called outside any actor reads its `accessToken`
/// closure once, when the source is made: the closure is not `Sendable`, and the source connects later from
/// whichever task iterates it, where calling the closure could race with the code that owns what it reads. After
/// the manager's `tokenRefresher` has renewed the token, the source's connections send ``currentAccessToken()``
/// instead; a refresher that does not adopt this protocol leaves the source nothing to send, and it ends with
/// `RenewedTokenUnavailable` (NetStreaming), which says so.
///
/// ```swift
/// final class TokenStore: TokenRefreshProvider, CurrentTokenProviding, Sendable {
///     private let token = Mutex<String?>(nil)
///     func refreshTokenIfNeeded() async throws { token.withLock { $0 = /* … */ "renewed" } }
///     func currentAccessToken() -> String? { token.withLock { $0 } }
/// }
/// ```
///
/// `Sendable`, because it is read from whichever task connects. Called on an actor, `eventSource` reads
/// `accessToken` afresh on that actor for each connection and never needs this; nor does
/// `eventSource(_:tokenProvider:policy:)`, whose provider is `Sendable` already.
public protocol CurrentTokenProviding: TokenRefreshProvider, Sendable {
    /// The access token now: what `accessToken()` would return after ``TokenRefreshProvider/refreshTokenIfNeeded()``
    /// (`nil` or empty sends no `Authorization`).
    func currentAccessToken() -> String?
}

/// Refreshes the credential after a 401, as EKNetwork's `tokenRefresher` does.
///
/// ```swift
/// final class TokenManager: TokenRefreshProvider {
///     func refreshTokenIfNeeded() async throws {
///         let response = try await networkManager.send(RefreshTokenRequest(token: store.refreshToken), accessToken: nil)
///         store.accessToken = response.accessToken
///     }
/// }
/// ```
///
/// NetKit calls it through ``TokenRefreshCoordinator``: once for any number of concurrent 401s, never twice
/// at the same time. A request the refresher sends through the same manager is not refreshed again on 401.
public protocol TokenRefreshProvider: AnyObject {
    /// Obtains a fresh credential; the next `accessToken()` read must return it.
    func refreshTokenIfNeeded() async throws
}

/// Marks the task that is refreshing a credential.
///
/// A refresher may send its own request through the same manager (EKNetwork's `TokenManager` example does).
/// If that request got a 401 and waited for the refresh in flight, it would wait for itself; inside this
/// scope a 401 fails with ``NetworkError/unauthorized`` instead.
public enum CredentialRecoveryScope {
    /// `true` inside a credential refresh.
    @TaskLocal public static var isRefreshing = false
}

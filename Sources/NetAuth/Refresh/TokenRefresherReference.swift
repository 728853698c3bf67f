/// A ``TokenRefreshProvider`` held across concurrency domains.
///
/// `@unchecked Sendable` because the provider (EKNetwork's protocol, which users implement with plain
/// classes) is not required to be `Sendable`. It is safe for NetKit's use: the reference is immutable, and
/// the only method NetKit calls, `refreshTokenIfNeeded()`, is called by a ``TokenRefreshCoordinator``
/// alone, which runs at most one refresh at a time; a manager keeps one coordinator per refresher (changing
/// the refresh policy does not replace it), so NetKit never enters the object from two threads at once. (Handing one provider to several managers is the
/// caller's own sharing, and then the provider must be safe for it.)
package struct TokenRefresherReference: @unchecked Sendable {
    /// The provider.
    package let provider: any TokenRefreshProvider

    /// Wraps `provider`.
    package init(_ provider: any TokenRefreshProvider) {
        self.provider = provider
    }
}

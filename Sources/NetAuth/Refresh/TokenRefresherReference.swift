/// A ``TokenRefreshProvider`` held across concurrency domains.
///
/// `@unchecked Sendable` because the provider (EKNetwork's protocol, which users implement with plain
/// classes) is not required to be `Sendable`. It is safe for NetKit's use: the only method NetKit calls,
/// `refreshTokenIfNeeded()`, is called by ``TokenRefreshCoordinator`` alone, which runs at most one refresh
/// at a time, so NetKit never touches the object from two threads at once. The reference is immutable.
package struct TokenRefresherReference: @unchecked Sendable {
    /// The provider.
    package let provider: any TokenRefreshProvider

    /// Wraps `provider`.
    package init(_ provider: any TokenRefreshProvider) {
        self.provider = provider
    }
}

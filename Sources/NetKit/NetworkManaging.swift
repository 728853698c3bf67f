/// The abstraction over ``NetworkManager`` that EKNetwork offers for mocking and dependency injection.
public protocol NetworkManaging {
    /// Refreshes the credential on 401.
    var tokenRefresher: (any TokenRefreshProvider)? { get set }

    /// Sends `request` and decodes its response, running on the caller's actor between network waits.
    nonisolated(nonsending) func send<T: NetworkRequest>(_ request: T, accessToken: (() -> String?)?) async throws
        -> T.Response
}

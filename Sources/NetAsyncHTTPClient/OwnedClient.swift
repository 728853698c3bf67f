#if AsyncHTTPClient
import AsyncHTTPClient
import NetKitLock

/// An `HTTPClient` that NetKit created and therefore shuts down: once, either when asked or when the last
/// transport copy and the last response body that use it are gone.
///
/// Response bodies keep it alive, so a transport dropped right after `send` does not cut its body short. The
/// shutdown on deinit runs in a detached task: a deinit cannot await, and `HTTPClient.syncShutdown()` would block
/// whichever thread (possibly one of Swift's cooperative pool) drops the last reference.
final class OwnedClient: Sendable {
    let client: HTTPClient
    private let isShutDown = Lock(false)

    init(_ client: HTTPClient) {
        self.client = client
    }

    deinit {
        guard claimShutdown() else { return }
        let client = self.client
        Task.detached {
            try? await client.shutdown()
        }
    }

    /// Shuts the client down now, if nobody did before. In-flight requests fail.
    func shutdown() async throws {
        guard claimShutdown() else { return }
        try await client.shutdown()
    }

    /// True for the first caller only.
    private func claimShutdown() -> Bool {
        isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
#endif

import NetKitLock
import Testing
import NetAuth

@Suite("Refresh window")
struct RefreshWindowTests {
    @Test("refreshes beyond the policy fail with refreshLimitExceeded until the window has passed")
    func limit() async throws {
        let clock = Lock(ContinuousClock.now)
        let refresher = GatedRefresher(gated: false)
        let coordinator = TokenRefreshCoordinator(
            refresher: refresher,
            policy: TokenRefreshPolicy(maxRefreshes: 3, interval: .seconds(30)),
            now: { clock.withLock { $0 } }
        )
        for generation in 0..<3 { try await coordinator.recover(fromUnauthorizedAt: UInt64(generation)) }
        await #expect(throws: TokenRefreshError.refreshLimitExceeded(limit: 3, interval: .seconds(30))) {
            try await coordinator.recover(fromUnauthorizedAt: 3)
        }
        #expect(refresher.callCount == 3)
        clock.withLock { $0 += .seconds(31) }
        try await coordinator.recover(fromUnauthorizedAt: 3)
        #expect(refresher.callCount == 4)
    }
}

import Foundation
import NetKit
import NetKitTesting
import Testing

/// Which statuses reject the credential is the policy's to say, not a 401 written into the stages.
@Suite("Rejection statuses: the engine asks the credential's policy which statuses mean a rejected credential")
struct RejectionStatusTests {
    /// 419 until the token is fresh, then the user.
    static func server(rejecting status: Int) -> StubTransport {
        StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Bearer token-1"
                ? .json(#"{"id":1,"name":"ann"}"#) : .status(status)
        }
    }

    @Test("a policy that names 419 renews on it and sends again")
    func policyNames419() async throws {
        let refresher = CountingRefresher()
        let stub = Self.server(rejecting: 419)
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        var policy = TokenRefreshPolicy()
        policy.rejectionStatuses = [401, 419]
        manager.tokenRefreshPolicy = policy
        manager.tokenRefresher = refresher
        let user = try await manager.send(GetUser(), accessToken: { refresher.token })
        #expect(user.id == 1)
        #expect(refresher.refreshes == 1)
        #expect(stub.requests.map(\.bearer) == ["Bearer token-0", "Bearer token-1"])
    }

    @Test("the default policy renews on 401 only: a 419 is the server's error, with no renewal")
    func defaultIs401Only() async throws {
        let refresher = CountingRefresher()
        let stub = Self.server(rejecting: 419)
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        await #expect(throws: (any Error).self) {
            try await manager.send(GetUser(), accessToken: { refresher.token })
        }
        #expect(refresher.refreshes == 0)
        #expect(stub.requestCount == 1)

        let unauthorized = Self.server(rejecting: 401)
        let renewing = NetworkManager(baseURL: stubBase, transport: unauthorized)
        renewing.tokenRefresher = refresher
        _ = try await renewing.send(GetUser(), accessToken: { refresher.token })
        #expect(refresher.refreshes == 1)
    }

    @Test("a rejection the policy names and that cannot be renewed reaches the caller as unauthorized")
    func unrenewableRejection() async throws {
        let coordinator = TokenRefreshCoordinator(
            policy: { () -> TokenRefreshPolicy in
                var policy = TokenRefreshPolicy()
                policy.rejectionStatuses = [403]
                return policy
            }(),
            refresh: { throw CancellationError() })
        let stub = StubTransport { _, _ in .status(403) }
        let executor = RequestExecutor(transport: stub)
        var request = GetUser()
        request.allowsRetry = false
        await #expect(throws: NetworkError.unauthorized) {
            _ = try await executor.send(request, baseURL: stubBase, accessToken: { "t" }, credentials: coordinator)
        }
        #expect(stub.requestCount == 1)
        #expect(await coordinator.refreshCount == 0, "a request that may not be renewed starts no renewal")
    }
}

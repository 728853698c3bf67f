import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit

/// An API on the loopback server whose tokens expire: every request needs the newest token it issued.
final class TokenIssuingAPI: Sendable {
    private struct State {
        var issued = 0
        var unauthorized = 0
        var refreshes = 0
        var joined = 0
    }

    private let state = Lock(State())
    private let condition = NSCondition()
    /// The refresh answers only once this many requests are waiting for it in the client's coordinator
    /// (reported through ``noteWaiting(_:)``, bounded by a timeout), so every request of a test has joined the
    /// same refresh in flight: none can take the "already refreshed" road.
    let refreshAfterUnauthorized: Int
    let refreshFails: Bool

    init(refreshAfterUnauthorized: Int, refreshFails: Bool = false) {
        self.refreshAfterUnauthorized = refreshAfterUnauthorized
        self.refreshFails = refreshFails
    }

    var refreshes: Int { state.withLock { $0.refreshes } }
    /// The most requests seen waiting for one refresh.
    var joined: Int { state.withLock { $0.joined } }

    /// Told by the client's coordinator how many requests wait for the refresh in flight.
    func noteWaiting(_ count: Int) {
        state.withLock { $0.joined = max($0.joined, count) }
        condition.broadcast()
    }
    var unauthorized: Int { state.withLock { $0.unauthorized } }

    func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        if request.path == "/auth/refresh" {
            waitForUnauthorized()
            if refreshFails {
                state.withLock { $0.refreshes += 1 }
                return .json(#"{"error":"refresh token revoked"}"#, status: 500)
            }
            let token = state.withLock { state -> Int in
                state.refreshes += 1
                state.issued += 1
                return state.issued
            }
            return .json(#"{"accessToken":"token-\#(token)"}"#)
        }
        let valid = state.withLock { $0.issued > 0 && request.header("Authorization") == "Bearer token-\($0.issued)" }
        if valid { return .json(#"{"id":1,"name":"ann"}"#) }
        state.withLock { $0.unauthorized += 1 }
        condition.broadcast()
        return .json(#"{"error":"expired"}"#, status: 401)
    }

    private func waitForUnauthorized() {
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while joined < refreshAfterUnauthorized, condition.wait(until: deadline) {}
    }
}

@Suite("Token refresh over loopback TCP")
struct TokenRefreshIntegrationTests {
    /// A manager on `server` whose refresher sends its refresh request through the manager itself.
    func signedInManager(_ server: LoopbackServer, api: TokenIssuingAPI) async -> (NetworkManager, ManagerTokenStore) {
        let manager = NetworkManager(baseURL: server.baseURL)
        let store = ManagerTokenStore(manager: manager)
        manager.tokenRefresher = store
        await manager.tokenRefreshCoordinator?.setWaitingCountObserver { api.noteWaiting($0) }
        return (manager, store)
    }

    func send(_ count: Int, through manager: NetworkManager, store: ManagerTokenStore) async -> [Result<
        User, any Error
    >] {
        await withTaskGroup(of: Result<User, any Error>.self) { group in
            for id in 0..<count {
                group.addTask {
                    do {
                        return .success(try await manager.send(GetUser(id: id), accessToken: { store.current }))
                    } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("100 concurrent requests that all get 401 cause exactly one refresh and all succeed")
    func hundredConcurrent401s() async throws {
        let api = TokenIssuingAPI(refreshAfterUnauthorized: 100)
        let server = try LoopbackServer { api.handle($0) }
        defer { server.stop() }
        let (manager, store) = await signedInManager(server, api: api)
        let results = await send(100, through: manager, store: store)
        #expect(results.filter { (try? $0.get()) != nil }.count == 100)
        #expect(api.joined == 100)
        #expect(api.refreshes == 1)
        #expect(api.unauthorized == 100)
        #expect(server.requestCount == 201)
    }

    @Test("a failed refresh fails all 100 requests with its error, and nothing is retried")
    func hundredConcurrentFailedRefresh() async throws {
        let api = TokenIssuingAPI(refreshAfterUnauthorized: 100, refreshFails: true)
        let server = try LoopbackServer { api.handle($0) }
        defer { server.stop() }
        let (manager, store) = await signedInManager(server, api: api)
        let results = await send(100, through: manager, store: store)
        let statuses = results.compactMap { result -> Int? in
            guard case .failure(let error) = result else { return nil }
            return (error as? HTTPError)?.statusCode
        }
        #expect(statuses == Array(repeating: 500, count: 100))
        #expect(api.joined == 100)
        #expect(api.refreshes == 1)
        #expect(server.requestCount == 101)
    }

    @Test("a 401 for a token replaced while the request was out is retried without a second refresh")
    func staleCredential() async throws {
        let api = TokenIssuingAPI(refreshAfterUnauthorized: 1)
        let refreshed = Lock(false)
        let condition = NSCondition()
        let server = try LoopbackServer { request in
            if request.path == "/users/1" && request.header("Authorization") == "Bearer expired" {
                // The slow request: it answers only after the refresh the other request caused.
                let deadline = Date().addingTimeInterval(10)
                condition.lock()
                while !refreshed.withLock({ $0 }), condition.wait(until: deadline) {}
                condition.unlock()
            }
            let response = api.handle(request)
            if request.path == "/auth/refresh" {
                refreshed.withLock { $0 = true }
                condition.broadcast()
            }
            return response
        }
        defer { server.stop() }
        let (manager, store) = await signedInManager(server, api: api)
        let slow = Task { try await manager.send(GetUser(id: 1), accessToken: { store.current }) }
        try await server.waitForRequests(1)
        let fast = try await manager.send(GetUser(id: 2), accessToken: { store.current })
        let late = try await slow.value
        #expect(fast.id == 1 && late.id == 1)
        #expect(api.refreshes == 1)
        #expect(
            server.requests.filter { $0.path == "/users/1" }.map { $0.header("Authorization") } == [
                "Bearer expired", "Bearer token-1",
            ])
    }
}

import Foundation
import Testing
import NetKit
import NetKitTesting

/// A token store that lives on the main actor, as in an app's view model.
@MainActor
final class MainActorTokenStore {
    var token = "main-actor-token"
    var reads = 0

    func read() -> String {
        reads += 1
        return token
    }
}

@Suite("Caller isolation")
struct CallerIsolationTests {
    /// Regression: the token closure formed on the main actor used to be called on a background executor,
    /// which crashed the process with an isolation assertion.
    @Test("a @MainActor token closure is called on the main actor, before each attempt")
    @MainActor
    func mainActorTokenClosure() async throws {
        let store = MainActorTokenStore()
        let refresher = CountingRefresher()
        let stub = StubTransport { _, index in index == 0 ? .status(401) : .json(#"{"id":1,"name":"ann"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        let user = try await manager.send(GetUser(), accessToken: { store.read() })
        #expect(user.id == 1)
        #expect(store.reads == 2)
        #expect(stub.requests.map(\.bearer) == ["Bearer main-actor-token", "Bearer main-actor-token"])
    }
}

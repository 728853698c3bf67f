// The README's quick start, compiled with the tests so the README cannot drift from the API.
import Foundation
import NetKit
import Synchronization
import Testing

struct Todo: Decodable, Sendable {
    let id: Int
    let title: String
}

struct ListTodos: NetworkRequest {
    typealias Response = [Todo]
    var path: String { "/todos" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["state": "open"] }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.5) }
}

func loadTodos() async throws -> [Todo] {
    let manager = NetworkManager(baseURL: URL(string: "https://api.example.com/v1")!)
    return try await manager.send(ListTodos(), accessToken: { "my-token" })
}

func testableManager() -> NetworkManager {
    let stub = StubTransport(replies: [.status(503), .json(#"[{"id":1,"title":"Ship"}]"#)])
    return NetworkManager(baseURL: URL(string: "https://api.test")!, transport: stub)
}

struct RefreshTokens: NetworkRequest {
    struct Tokens: Decodable { let accessToken: String }
    typealias Response = Tokens
    var path: String { "/auth/refresh" }
    var method: HTTPMethod { .post }
}

final class Session: TokenRefreshProvider, Sendable {
    let manager: NetworkManager
    let token = Mutex("")
    init(manager: NetworkManager) { self.manager = manager }

    func refreshTokenIfNeeded() async throws {
        let tokens = try await manager.send(RefreshTokens(), accessToken: nil)
        token.withLock { $0 = tokens.accessToken }
    }
}

func signedInManager() -> (NetworkManager, Session) {
    let manager = NetworkManager(baseURL: URL(string: "https://api.example.com")!)
    let session = Session(manager: manager)
    manager.tokenRefresher = session
    manager.holdsRequestsDuringRefresh = true // requests that start mid-refresh wait for the new token
    return (manager, session)
}

@Suite("README")
struct ReadmeExampleTests {
    @Test("the stubbed quick start retries the 503 and decodes the list")
    func quickStart() async throws {
        let todos = try await testableManager().send(ListTodos(), accessToken: { "my-token" })
        #expect(todos.map(\.title) == ["Ship"])
    }

    @Test("the sign-in example wires the refresher and the held line")
    func signedIn() {
        let (manager, session) = signedInManager()
        #expect(manager.tokenRefresher === session)
        #expect(manager.holdsRequestsDuringRefresh)
    }
}

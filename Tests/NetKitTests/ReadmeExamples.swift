// The README's quick start, compiled with the tests so the README cannot drift from the API.
import Foundation
import NetKit
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

@Suite("README")
struct ReadmeExampleTests {
    @Test("the stubbed quick start retries the 503 and decodes the list")
    func quickStart() async throws {
        let todos = try await testableManager().send(ListTodos(), accessToken: { "my-token" })
        #expect(todos.map(\.title) == ["Ship"])
    }
}

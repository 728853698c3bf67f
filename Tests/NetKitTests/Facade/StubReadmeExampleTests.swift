import Foundation
import NetKit
import NetKitTesting
import Testing

/// The README's "Testing with stubs" example, compiled and run (its types nested so as not to meet the fixtures').
@Suite("README: testing with stubs")
struct StubReadmeExampleTests {
    struct User: Decodable, Equatable {
        let id: Int
        let name: String
    }

    struct GetUser: NetworkRequest {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
        var method: HTTPMethod { .get }
    }

    @Test func loadsAUserAndReportsStrayRequests() async throws {
        let stub = StubTransport()
        stub.stub(
            .method(.get), .path("/v1/users/1"), .header("Authorization", "Bearer t0k3n"),
            reply: .json(#"{"id":1,"name":"Ann"}"#))
        stub.stub(.url(matching: #/users/\d+$/#), reply: .status(404))
        let manager = NetworkManager(baseURL: URL(string: "https://api.example.com/v1")!, transport: stub)

        let user = try await manager.send(GetUser(id: 1), accessToken: { "t0k3n" })
        #expect(user == User(id: 1, name: "Ann"))
        await #expect(throws: HTTPError.self) { try await manager.send(GetUser(id: 2), accessToken: { "t0k3n" }) }
        #expect(stub.unmatchedRequests.isEmpty)
    }
}

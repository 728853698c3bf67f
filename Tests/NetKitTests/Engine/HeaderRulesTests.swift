import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("EKNetwork's header rules")
struct HeaderRulesTests {
    struct SignedElsewhere: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/signed" }
        var method: HTTPMethod { .get }
        var headers: [String: String]? { ["authorization": "HMAC key=1 sig=abc", "Accept": "text/csv"] }
    }

    @Test("a request's own Authorization header is sent as it is, not replaced by the accessToken bearer")
    func ownAuthorization() async throws {
        let stub = StubTransport(replies: [.status(204), .status(204)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.send(SignedElsewhere(), accessToken: { "bearer-token" })
        _ = try await manager.send(DeleteUser(), accessToken: { "bearer-token" })
        #expect(stub.requests[0].value(forHeader: "Authorization") == "HMAC key=1 sig=abc")
        #expect(stub.requests[1].value(forHeader: "Authorization") == "Bearer bearer-token")
    }

    @Test("Accept: application/json unless the request sets its own Accept")
    func accept() async throws {
        let stub = StubTransport(replies: [.status(204), .status(204)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.send(DeleteUser(), accessToken: nil)
        _ = try await manager.send(SignedElsewhere(), accessToken: nil)
        #expect(stub.requests[0].value(forHeader: "Accept") == "application/json")
        #expect(stub.requests[1].value(forHeader: "Accept") == "text/csv")
    }

    @Test("responseDecoderProvider can be set after initialization")
    func settableDecoderProvider() async throws {
        struct Snake: Decodable, Sendable { let fullName: String }
        struct GetSnake: NetworkRequest {
            typealias Response = Snake
            var path: String { "/snake" }
            var method: HTTPMethod { .get }
        }
        let stub = StubTransport(replies: [.json(#"{"full_name":"Ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        #expect(manager.responseDecoderProvider == nil)
        manager.responseDecoderProvider = {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        #expect(try await manager.send(GetSnake(), accessToken: nil).fullName == "Ann")
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
import NetKit
import NetKitTesting

@Suite("Middleware chain")
struct MiddlewareTests {
    final class Trail: Sendable {
        let steps = Mutex<[String]>([])
        func append(_ step: String) { steps.withLock { $0.append(step) } }
        var all: [String] { steps.withLock { $0 } }
    }

    struct Tag: Middleware {
        let name: String
        let trail: Trail
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            trail.append("→\(name)")
            var request = request
            try request.setHeader("X-\(name)", "1")
            let response = try await next(request)
            trail.append("←\(name)")
            return response
        }
    }

    struct SendTwice: Middleware {
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            _ = try await next(request)
            return try await next(request)
        }
    }

    @Test("middlewares run outermost first and see the response in reverse")
    func order() async throws {
        let trail = Trail()
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"a"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub, middlewares: [Tag(name: "A", trail: trail), Tag(name: "B", trail: trail)])
        _ = try await manager.send(GetUser(), accessToken: nil)
        #expect(trail.all == ["→A", "→B", "←B", "←A"])
        #expect(stub.requests.first?.value(forHeader: "X-A") == "1")
        #expect(stub.requests.first?.value(forHeader: "X-B") == "1")
    }

    @Test("a middleware may call next more than once")
    func callsNextTwice() async throws {
        let stub = StubTransport(replies: [.status(500), .json(#"{"id":2,"name":"b"}"#)])
        let user = try await NetworkManager(baseURL: stubBase, transport: stub, middlewares: [SendTwice()]).send(GetUser(), accessToken: nil)
        #expect(user.id == 2)
        #expect(stub.requestCount == 2)
    }

    @Test("a middleware cannot smuggle CR/LF into a header")
    func middlewareHeaderValidation() {
        var request = TransportRequest(head: URLRequest(url: stubBase))
        #expect(throws: NetworkError.invalidHeader(name: "X-A")) { try request.setHeader("X-A", "1\r\nX-B: 2") }
    }
}

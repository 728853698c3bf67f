import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
import NetKit

/// Errors that come from URLSession itself, over real sockets, leave NetKit without the URL's query values.
@Suite("Error texts over loopback TCP")
struct ErrorTextIntegrationTests {
    struct Secret: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/secret" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { ["token": "QRS"] }
    }

    /// A port on 127.0.0.1 that refuses connections while the test runs (each test gets its own instance).
    let closed: LoopbackClosedPort

    init() throws {
        closed = try LoopbackClosedPort()
    }

    /// A base URL on a port nothing listens on, with a secret in its query.
    func closedBase() throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(closedPort())/secret?api_key=XYZ"))
    }

    func closedPort() -> Int { closed.port }

    func expectNoSecret(_ error: any Error) {
        for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
            #expect(!text.contains("XYZ") && !text.contains("api_key=") && !text.contains("QRS"), "\(text)")
            #expect(!text.contains("\n"), "\(text)")
            #expect(text.contains("127.0.0.1"), "\(text)")
        }
    }

    @Test("a refused connection through the facade is URLError.cannotConnectToHost with no URL and no query value")
    func refusedThroughFacade() async throws {
        let base = try closedBase()
        let port = try #require(base.port)
        let manager = NetworkManager(baseURL: base)
        let error = try await #require(throws: URLError.self) { try await manager.send(Secret(), accessToken: nil) }
        #expect(error.code == .cannotConnectToHost)
        #expect(error.failingURL == nil)
        expectNoSecret(error)
        #expect(error.localizedDescription.hasPrefix("Could not connect to 127.0.0.1:\(port) (cannotConnect"))
        #expect(
            error.localizedDescription.hasSuffix(
                "Is a server running and listening on 127.0.0.1:\(port)? Nothing accepted the connection there."),
            "\(error.localizedDescription)")
    }

    @Test("a refused connection says where and what to check, on send and on stream, with the URLError beneath")
    func refusedSaysWhereAndWhat() async throws {
        let port = closedPort()
        let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let executor = RequestExecutor(transport: URLSessionTransport(configuration: .ephemeral))
        let sent = try await #require(throws: TransportError.self) { try await executor.send(Secret(), baseURL: base) }
        let streamed = try await #require(throws: TransportError.self) {
            _ = try await executor.stream(Secret(), baseURL: base)
        }
        for error in [sent, streamed] {
            #expect(error.host == "127.0.0.1" && error.port == port)
            #expect(
                error.description.hasPrefix("Could not connect: 127.0.0.1:\(port) (URLError -1004"), "\(error)")
            #expect(
                error.description.hasSuffix(
                    "Is a server running and listening on 127.0.0.1:\(port)? Nothing accepted the connection there"),
                "\(error)")
            #expect((error.underlying as? URLError)?.code == .cannotConnectToHost)
        }
    }

    @Test(
        "a refused connection through NetKit's engine and the URLSession transport is a TransportError without query values"
    )
    func refusedThroughEngine() async throws {
        let executor = RequestExecutor(transport: URLSessionTransport(configuration: .ephemeral))
        let error = try await #require(throws: TransportError.self) {
            try await executor.send(Secret(), baseURL: try closedBase())
        }
        #expect(error.kind == .cannotConnect)
        expectNoSecret(error)
    }
}

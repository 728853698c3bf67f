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

    /// A base URL on a port nothing listens on, with a secret in its query.
    func closedBase() throws -> URL {
        let server = try LoopbackServer { _ in .text("") }
        let port = server.port
        server.stop()
        return try #require(URL(string: "http://127.0.0.1:\(port)/secret?api_key=XYZ"))
    }

    func expectNoSecret(_ error: any Error) {
        for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
            #expect(!text.contains("XYZ") && !text.contains("api_key=") && !text.contains("QRS"), "\(text)")
            #expect(!text.contains("\n"), "\(text)")
            #expect(text.contains("127.0.0.1"), "\(text)")
        }
    }

    @Test("a refused connection through the facade is URLError.cannotConnectToHost with no URL and no query value")
    func refusedThroughFacade() async throws {
        let manager = NetworkManager(baseURL: try closedBase())
        let error = try await #require(throws: URLError.self) { try await manager.send(Secret(), accessToken: nil) }
        #expect(error.code == .cannotConnectToHost)
        #expect(error.failingURL == nil)
        expectNoSecret(error)
        #expect(error.localizedDescription.hasPrefix("Could not connect to 127.0.0.1 (cannotConnect"))
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

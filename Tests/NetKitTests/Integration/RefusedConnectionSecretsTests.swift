import Foundation
import LoopbackServer
import Testing
import NetKit

/// A refused connection over the real URLSession transport: the error NetKit throws names the host, never the
/// URL's query values, however it is printed.
@Suite("Secrets in the errors of a refused connection")
struct RefusedConnectionSecretsTests {
    struct Secret: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/private/secret-path" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { ["api_key": "SECRET-KEY-123"] }
    }

    /// Every way a caller or a logger may print an error.
    func printed(_ error: any Error) -> [String] {
        ["\(error)", String(reflecting: error), error.localizedDescription, "\(error as NSError)"]
    }

    @Test("NetworkManager and RequestExecutor: no query value, path or key in any printing of the error")
    func refused() async throws {
        let closed = try LoopbackClosedPort()
        let base = closed.baseURL
        let manager = NetworkManager(baseURL: base, transport: URLSessionTransport())
        var errors: [any Error] = []
        do { _ = try await manager.send(Secret(), accessToken: nil) } catch { errors.append(error) }
        do {
            _ = try await RequestExecutor(transport: URLSessionTransport()).send(Secret(), baseURL: base)
        } catch { errors.append(error) }
        withExtendedLifetime(closed) {}
        #expect(errors.count == 2)
        for text in errors.flatMap(printed) {
            #expect(!text.contains("SECRET-KEY-123") && !text.contains("api_key"), "\(text)")
            #expect(!text.contains("secret-path"), "\(text)")
            #expect(text.contains("127.0.0.1") || text.contains("Could not connect"), "\(text)")
        }
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetCore
import NetTransport
import Testing

/// A `URLSessionConfiguration`'s `httpAdditionalHeaders` go out as URLSession sends them, except that a credential
/// among them (`Authorization`, a secret-looking name, a declared field) never reaches an origin the engine's
/// credential scope excludes: URLSession would add them to every request, the redirect to another origin included.
@Suite("A URLSession configuration's header fields and the credential scope")
struct URLSessionConfigurationHeadersTests {
    struct Echo: Endpoint {
        typealias Response = Data
        var path: String
        var method: HTTPMethod { .get }
        var baseURL: URL?
    }

    /// `/start` redirects to `/echo` on `localhost` (another origin than `127.0.0.1`); `/echo` says what came.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            guard request.path == "/start" else {
                let fields = ["Authorization", "X-Api-Token", "X-Trace", "User-Agent"].map { request.header($0) ?? "-" }
                return .text("auth=\(fields[0]) token=\(fields[1]) trace=\(fields[2]) agent=\(fields[3])")
            }
            let port = (request.header("Host") ?? "").split(separator: ":").last.map(String.init) ?? ""
            return LoopbackResponse(
                status: 302, headers: [(name: "Location", value: "http://localhost:\(port)/echo")], body: Data())
        }
    }

    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = [
            "Authorization": "Bearer session", "X-Api-Token": "k1", "X-Trace": "t1", "User-Agent": "mine/1",
        ]
        return configuration
    }

    func echo(_ path: String, base: URL, requestBase: URL? = nil) async throws -> String {
        let engine = RequestExecutor(transport: URLSessionTransport(configuration: Self.configuration()))
        let data = try await engine.send(Echo(path: path, baseURL: requestBase), baseURL: base)
        return String(decoding: data, as: UTF8.self)
    }

    @Test("at the base URL's origin, every field of the configuration goes")
    func sameOrigin() async throws {
        let server = try Self.server()
        defer { server.stop() }
        #expect(try await echo("/echo", base: server.baseURL) == "auth=Bearer session token=k1 trace=t1 agent=mine/1")
    }

    @Test("a redirect to another origin carries none of the configuration's credentials, its other fields still")
    func redirectToAnotherOrigin() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let echoed = try await echo("/start", base: server.baseURL)
        #expect(echoed == "auth=- token=- trace=t1 agent=mine/1")
    }

    @Test("a request built for another origin than the base URL's carries none of them either")
    func requestToAnotherOrigin() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let other = try #require(URL(string: "http://localhost:\(server.port)"))
        let echoed = try await echo("/echo", base: server.baseURL, requestBase: other)
        #expect(echoed == "auth=- token=- trace=t1 agent=mine/1")
    }
}

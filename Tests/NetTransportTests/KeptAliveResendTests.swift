import Foundation
import LoopbackServer
import NetCore
import NetTransport
import Testing

/// A server that drops a kept-alive connection as the next request arrives. libcurl then sends the request again on
/// a new connection and asks for its body again; without an answer it sent the headers alone and waited for its
/// idle timeout (60 s), spinning a core.
@Suite("URLSession transport: a kept-alive connection closed without an answer", .timeLimit(.minutes(10)))
struct KeptAliveResendTests {
    /// The first connection answers its first request, then closes on the second without a word; later connections
    /// answer with the number of body bytes they received.
    func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            if request.connectionNumber == 1, request.path != "/first" {
                return LoopbackResponse(faults: [.closeWithoutResponse])
            }
            return .text("\(request.bodyByteCount)")
        }
    }

    /// Sends a GET, so the connection is kept alive, then `request`'s method and body on it.
    func send(_ method: HTTPRequestMethod, body: UploadSource, headers: [String: String] = [:]) async throws -> (
        TransportResponse, LoopbackServer
    ) {
        let server = try server()
        let transport = URLSessionTransport()
        let first = TransportRequest(
            head: try HTTPRequestHead(method: .get, url: server.baseURL.appending(path: "first")))
        _ = try await transport.send(first).body.collect(upTo: 100)
        var request = TransportRequest(
            head: try HTTPRequestHead(method: method, url: server.baseURL.appending(path: "second")), body: body)
        for (name, value) in headers { try request.setHeader(name, value) }
        return (try await transport.send(request), server)
    }

    @Test("a POST fails at once with connectionReset: a request that is not idempotent is never sent twice")
    func postFailsFast() async throws {
        let error = await #expect(throws: TransportError.self) {
            _ = try await send(.post, body: UploadSource(data: Data(#"{"name":"a"}"#.utf8)))
        }
        #expect(error?.kind == .connectionReset)
        #expect(error?.detail?.contains("not idempotent") == true, "\(String(describing: error))")
    }

    @Test("an idempotent request with a body that can be read again is sent again whole, on a new connection")
    func idempotentStreamResent() async throws {
        let body = UploadSource(segments: [
            .data(Data(repeating: 1, count: 3000)), .data(Data(repeating: 2, count: 4000)),
        ])
        let (response, server) = try await send(.put, body: body)
        defer { server.stop() }
        #expect(response.statusCode == 200)
        #expect(try await response.body.collect(upTo: 100) == Data("7000".utf8))
        // Sent on the kept-alive connection first, then again, whole, on a new one.
        #expect(server.requests.filter { $0.path == "/second" }.map(\.connectionNumber) == [1, 2])
    }

    @Test("a POST with an Idempotency-Key counts as idempotent")
    func idempotencyKey() async throws {
        let body = UploadSource(segments: [.data(Data(repeating: 1, count: 10)), .data(Data(repeating: 2, count: 5))])
        let (response, server) = try await send(.post, body: body, headers: ["Idempotency-Key": "k-1"])
        defer { server.stop() }
        #expect(try await response.body.collect(upTo: 100) == Data("15".utf8))
    }

    @Test("an idempotent request whose body is in memory fails at once: URLSession cannot hand it over again")
    func inMemoryBodyFailsFast() async throws {
        let error = await #expect(throws: TransportError.self) {
            _ = try await send(.put, body: UploadSource(data: Data("in memory".utf8)))
        }
        #expect(error?.kind == .connectionReset)
        #expect(
            error?.detail?.contains("cannot send this request's body again") == true, "\(String(describing: error))")
    }
}

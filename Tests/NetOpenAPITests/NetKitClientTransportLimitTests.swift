#if OpenAPI
import Foundation
import HTTPTypes
import LoopbackServer
import NetCore
import NetOpenAPI
import OpenAPIRuntime
import Testing

/// A generated client's response bodies obey the engine's bounds, on every transport, over loopback TCP: its
/// `responseLimit` (at the head for a declared length, as the body arrives otherwise) and the request's timeout and
/// idle timeout.
@Suite("NetKitClientTransport: response bodies within the engine's bounds", .timeLimit(.minutes(10)))
struct NetKitClientTransportLimitTests {
    static let limit = 1 << 20

    func transport(_ kind: TransportKind) -> (NetKitClientTransport, @Sendable () async throws -> Void) {
        let (netTransport, shutdown) = kind.make()
        var executor = RequestExecutor(transport: netTransport)
        executor.responseLimit = Self.limit
        return (NetKitClientTransport(executor: executor), shutdown)
    }

    @Test(
        "a body past responseLimit ends with responseTooLarge, having handed over no more, and stops its transfer",
        arguments: TransportKind.allCases)
    func bodyPastLimit(_ kind: TransportKind) async throws {
        // 4 MiB, then nothing until the client leaves: the transfer outlives the limit, so only the client's stop
        // ends it. (More would test URLSession's flood bound instead: it has no backpressure, and a body that
        // arrives faster than its spill is written fails with ResponseBodyError.spillFailed.)
        let server = try LoopbackServer { _ in
            .streamed { body in
                for _ in 0..<4 {
                    guard body.writePattern(byteCount: 1 << 20) else { return }
                }
                _ = body.waitForClientClose(timeout: .seconds(60))
            }
        }
        defer { server.stop() }
        let (transport, shutdown) = transport(kind)
        let (response, body) = try await transport.send(
            request(.get, "/big"), body: nil, baseURL: server.baseURL, operationID: "big")
        #expect(response.status.code == 200)
        var received = 0
        let error = await #expect(throws: NetworkError.self) {
            for try await chunk in try #require(body) { received += chunk.count }
        }
        #expect(error == .responseTooLarge(limitBytes: Self.limit), "read \(received) bytes")
        #expect(received <= Self.limit)
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
        try await shutdown()
    }

    @Test("a declared Content-Length past responseLimit is refused at the head", arguments: TransportKind.allCases)
    func declaredPastLimit(_ kind: TransportKind) async throws {
        let server = try LoopbackServer { _ in .patterned(byteCount: 32 << 20, chunked: false) }
        defer { server.stop() }
        let (transport, shutdown) = transport(kind)
        await #expect(throws: NetworkError.responseTooLarge(limitBytes: Self.limit)) {
            _ = try await transport.send(request(.get, "/big"), body: nil, baseURL: server.baseURL, operationID: "big")
        }
        try await shutdown()
    }

    /// A head and a first piece of body, then nothing until the client leaves.
    func stallingServer() throws -> LoopbackServer {
        try LoopbackServer { _ in
            .streamed { body in
                body.write("first piece")
                _ = body.waitForClientClose(timeout: .seconds(30))
            }
        }
    }

    @Test("the request's timeout bounds the reading of the body", arguments: TransportKind.allCases)
    func timeoutBoundsBody(_ kind: TransportKind) async throws {
        let server = try stallingServer()
        defer { server.stop() }
        let (bounded, shutdown) = transport(kind)
        var transport = bounded
        transport.timeout = .seconds(2)
        // The head comes at once, but on a loaded machine it may come after the deadline: the timeout bounds the
        // exchange either way. Without a bound on the body, the read would wait for the server's 30 s.
        let error = await #expect(throws: TransportError.self) {
            let (_, body) = try await transport.send(
                request(.get, "/stall"), body: nil, baseURL: server.baseURL, operationID: "stall")
            _ = try await collect(body)
        }
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        try await shutdown()
    }

    @Test("the engine's idle timeout bounds each wait for a body byte", arguments: TransportKind.allCases)
    func idleTimeoutBoundsBody(_ kind: TransportKind) async throws {
        let server = try stallingServer()
        defer { server.stop() }
        let (netTransport, shutdown) = kind.make()
        var executor = RequestExecutor(transport: netTransport)
        executor.builder.idleTimeout = .seconds(2)
        let transport = NetKitClientTransport(executor: executor)
        // The head comes at once, but on a loaded machine it may come after the deadline: the timeout bounds the
        // exchange either way. Without a bound on the body, the read would wait for the server's 30 s.
        let error = await #expect(throws: TransportError.self) {
            let (_, body) = try await transport.send(
                request(.get, "/stall"), body: nil, baseURL: server.baseURL, operationID: "stall")
            _ = try await collect(body)
        }
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        try await shutdown()
    }
}
#endif

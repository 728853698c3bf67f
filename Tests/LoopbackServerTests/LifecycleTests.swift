import Foundation
import LoopbackServer
import NetKitLock
import Testing

@Suite("Lifecycle and waiting")
struct LifecycleTests {
    @Test func waitForRequestsResumesAsRequestsArrive() async throws {
        let server = try makeServer()
        defer { server.stop() }

        async let waited: Void = server.waitForRequests(2)
        let client = try TestClient(port: server.port)
        try client.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n")
        try await waited

        #expect(server.requestCount >= 2)
        #expect(server.requests.prefix(2).map(\.path) == ["/1", "/2"])
    }

    @Test func waitForRequestsReturnsAtOnceWhenAlreadyReached() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse()

        try await server.waitForRequests(0)
        try await server.waitForRequests(1, timeout: .milliseconds(1))
    }

    @Test func waitForRequestsTimesOut() async throws {
        let server = try makeServer()
        defer { server.stop() }

        await #expect(throws: LoopbackServerError.timedOut(counter: "requests", expected: 1, reached: 0)) {
            try await server.waitForRequests(1, timeout: .milliseconds(50))
        }
    }

    @Test func stopFailsPendingWaits() async throws {
        let server = try makeServer()
        let waiting = Task { try await server.waitForRequests(5, timeout: .seconds(60)) }

        server.stop()

        await #expect(throws: LoopbackServerError.stopped) { try await waiting.value }
    }

    @Test func waitingIsCancellable() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let waiting = Task { try await server.waitForRequests(5, timeout: .seconds(60)) }

        waiting.cancel()

        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test func concurrentConnectionsAreCountedSeparately() async throws {
        let server = try LoopbackServer { .text("\($0.connectionNumber)") }
        defer { server.stop() }
        let first = try TestClient(port: server.port)
        let second = try TestClient(port: server.port)

        try first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try second.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let answers = Set([try first.readResponse().bodyText, try second.readResponse().bodyText])

        #expect(answers == ["1", "2"])
        #expect(server.acceptedConnections == 2)
    }

    @Test func clientClosingAnIdleConnectionIsNotAnAbort() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse()

        client.close()

        try await server.wait(for: .closedConnections, atLeast: 1)
        #expect(server.acceptedConnections == 1)
        #expect(server.clientAbortedResponses == 0)
    }

    @Test func stopClosesAnIdleKeepAliveConnectionPromptly() throws {
        let server = try makeServer()
        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse()

        let elapsed = measure { server.stop() }

        #expect(elapsed < .seconds(10))
        #expect(try client.readsEOF())
        #expect(server.closedConnections == 1)
    }

    @Test func stopInterruptsAHalfReceivedRequest() throws {
        let server = try makeServer()
        let client = try TestClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part")

        let elapsed = measure { server.stop() }

        #expect(elapsed < .seconds(10))
        #expect(client.seesConnectionEnd())
        #expect(server.requestCount == 0)
    }

    @Test func stoppedServerRefusesConnections() throws {
        let marker = UUID().uuidString
        let server = try makeServer(.text(marker))
        let port = server.port
        #expect(answers(marker, on: port))

        server.stop()
        server.stop()

        #expect(!answers(marker, on: port))
    }

    @Test func releasingTheServerStopsIt() throws {
        let marker = UUID().uuidString
        var server: LoopbackServer? = try makeServer(.text(marker))
        let port = try #require(server?.port)
        #expect(answers(marker, on: port))

        server = nil

        #expect(!answers(marker, on: port))
    }

    /// Lets a handler reach its own server without a strong cycle outliving the test.
    private final class ServerBox: Sendable {
        let server = Lock<LoopbackServer?>(nil)
    }

    @Test func handlerMayStopItsOwnServer() throws {
        let box = ServerBox()
        let server = try LoopbackServer { _ in
            box.server.withLock { $0 }?.stop()
            return .text("unreachable")
        }
        box.server.withLock { $0 = server }
        defer { box.server.withLock { $0 = nil } }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try client.readsEOF())
        server.stop()
    }
}

import Foundation
import LoopbackServer
import Testing
import NetKit

/// A stream's body is read after `stream` returns; the request's timeout and idle timeout still bound it.
@Suite("Stream timeouts over loopback TCP", .timeLimit(.minutes(10)))
struct StreamTimeoutTests {
    struct Silent: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/silent" }
        var method: HTTPMethod { .get }
        var timeout: Duration?
        var idleTimeout: Duration?
    }

    /// A server that sends the head and a first line, then nothing until the client hangs up.
    func silentServer() throws -> LoopbackServer {
        try LoopbackServer { _ in
            .streamed { writer in
                guard writer.write("first\n") else { return }
                _ = writer.waitForClientClose(timeout: .seconds(120))
            }
        }
    }

    func expectTimedOut(_ request: Silent, detail: String, orTransportDetail transportDetail: String? = nil)
        async throws
    {
        let server = try silentServer()
        defer { server.stop() }
        let executor = RequestExecutor(transport: URLSessionTransport())
        // On a loaded machine the deadline may pass before the head is in: the same error then comes from `stream`.
        var bodyStarted = false
        do {
            let response = try await executor.stream(request, baseURL: server.baseURL)
            bodyStarted = true
            for try await _ in response.lines() {}
            Issue.record("the stream ended cleanly although the server went silent")
        } catch let error as TransportError {
            // Before the fix the body waited for URLSession's own idle timeout (60 s) and said so in its words.
            #expect(error.kind == .timedOut)
            #expect(error.detail == detail || error.detail == transportDetail, "\(error)")
        }
        // The client hangs up on the body it gave up on. Only once the body had started: a request whose deadline
        // passed before its head may never have left URLSession's work queue, which every session of the process
        // shares and which the suite's other transfers can hold for tens of seconds (once in CI the deadline surfaced
        // after about 38 s and the server saw no hang-up). For the same reason the hang-up, which URLSession's
        // cancellation sends from that queue, gets a minute.
        if bodyStarted { try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(60)) }
    }

    @Test("the request's timeout bounds the body too: a server gone silent mid-body ends the stream with timedOut")
    func wholeTimeout() async throws {
        try await expectTimedOut(
            Silent(timeout: .seconds(1)), detail: "the request did not finish within its timeout")
    }

    @Test("an idle timeout ends a stream that stays open without a deadline once no byte comes for that long")
    func idleTimeout() async throws {
        // Long enough that the head is in before it on a busy machine. URLSession watches the same idle time in
        // whole seconds (2.1 s rounded up to 3): on a machine so busy that NetKit's timer wakes late, libcurl's may
        // end the stream first, with the same kind.
        try await expectTimedOut(
            Silent(idleTimeout: .milliseconds(2100)), detail: "no body byte within the request's idle timeout",
            orTransportDetail: "URLError -1001 timedOut")
    }

    @Test("a stream that ends in time is not touched by its timeouts, and leaves no timer behind")
    func endsInTime() async throws {
        let server = try LoopbackServer { _ in .streamed { writer in _ = writer.write("a\nb\nc\n") } }
        defer { server.stop() }
        let executor = RequestExecutor(transport: URLSessionTransport())
        let request = Silent(timeout: .seconds(30), idleTimeout: .seconds(30))
        let response = try await executor.stream(request, baseURL: server.baseURL)
        var lines: [String] = []
        for try await line in response.lines() { lines.append(line) }
        #expect(lines == ["a", "b", "c"])
    }
}

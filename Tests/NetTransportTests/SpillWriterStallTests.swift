import Foundation
import LoopbackServer
import NetCore
import NetTransport
import NetKitLock
import Testing

/// On Linux every URLSession's work queue targets one serial queue for the whole process: a spill file written or read
/// there (or under a lock the callbacks take) would make every other URLSession client wait for the disk.
@Suite("URLSession transport: the spill file is written off the shared work queue", .timeLimit(.minutes(10)))
struct SpillWriterStallTests {
    /// What the held writer has done so far.
    final class Writer: Sendable {
        let gate: LoopbackGate
        let entered: AsyncStream<Void>
        private let signal: AsyncStream<Void>.Continuation
        /// Whether the first write has been let through (or gave up waiting).
        private let returned = Lock(false)

        init() throws {
            gate = try LoopbackGate()
            (entered, signal) = AsyncStream.makeStream(of: Void.self)
        }

        /// Runs before each write to the spill file: the first one waits for the gate (at most 20 s, so that a
        /// failure cannot hang the process).
        func beforeWrite() {
            guard !hasReturned else { return }
            signal.yield()
            _ = gate.wait(timeout: .seconds(20))
            returned.withLock { $0 = true }
        }

        var hasReturned: Bool { returned.withLock { $0 } }
    }

    @Test("another client's transfer completes while the spill file's writer is blocked")
    func otherClientNotStalled() async throws {
        let body = 4 << 20
        let server = try LoopbackServer { request in
            request.path == "/large" ? .patterned(byteCount: body, chunked: true) : .text("ok")
        }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory
        let writer = try Writer()
        defer { writer.gate.open() }
        let spilling = URLSessionTransport(
            bufferLimit: 64 * 1024, spillLimit: 64 << 20, spillDirectory: directory,
            beforeSpillWrite: { _, _ in writer.beforeWrite() })
        // Its consumer reads nothing yet: past 64 KiB everything goes to the spill file.
        let large = try await spilling.send(
            TransportRequest(head: try HTTPRequestHead(url: server.baseURL.appending(path: "large"))))
        var entered = writer.entered.makeAsyncIterator()
        await entered.next()
        // Before the fix the write ran on URLSession's shared work queue: this waited for the gate's 20 s.
        let other = try await URLSessionTransport().send(
            TransportRequest(head: try HTTPRequestHead(method: .get, url: server.baseURL)))
        #expect(try await other.body.collect(upTo: 10) == Data("ok".utf8))
        #expect(!writer.hasReturned, "the spill writer's wait had ended before the other transfer completed")
        writer.gate.open()
        let received = try await large.body.collect(upTo: 2 * body)
        #expect(received == LoopbackBodyPattern.data(count: body))
    }
}

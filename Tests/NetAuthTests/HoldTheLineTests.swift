import Foundation
import Testing
import NetCore
import NetKitTesting

@Suite("Hold the line")
struct HoldTheLineTests {
    /// A line that reports its waiting count, so a test knows when requests are parked.
    func observedLine() -> (HoldTheLine, AsyncStream<Int>) {
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        return (HoldTheLine { report.yield($0) }, counts)
    }

    func waitFor(_ count: Int, in counts: AsyncStream<Int>) async {
        for await value in counts where value == count { return }
    }

    @Test("held requests wait without reaching the transport, then go in arrival order")
    func holdAndRelease() async throws {
        let (line, counts) = observedLine()
        let stub = StubTransport { _, _ in .status(200) }
        let executor = RequestExecutor(transport: stub, line: line)
        line.hold()
        let tasks = (0..<3).map { _ in Task { try await executor.send(Ping(), baseURL: authBase).statusCode } }
        await waitFor(3, in: counts)
        #expect(stub.requestCount == 0)
        line.release()
        for task in tasks { #expect(try await task.value == 200) }
        #expect(stub.requestCount == 3)
    }

    @Test("the holder's own requests pass; others wait until the operation ends")
    func holderPasses() async throws {
        let (line, counts) = observedLine()
        let stub = StubTransport { _, _ in .status(200) }
        let executor = RequestExecutor(transport: stub, line: line)
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        let (finish, finishNow) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await line.withLineHeld {
                _ = try await executor.send(Ping(path: "/maintenance"), baseURL: authBase)
                enter.yield()
                for await _ in finish {}
            }
        }
        var iterator = entered.makeAsyncIterator()
        await iterator.next()
        let waiting = Task { try await executor.send(Ping(path: "/other"), baseURL: authBase).statusCode }
        await waitFor(1, in: counts)
        #expect(stub.requests.map { String($0.head.pathWithoutQuery) } == ["/api/maintenance"])
        finishNow.finish()
        try await holder.value
        #expect(try await waiting.value == 200)
        #expect(!line.isHeld)
    }

    @Test("a cancelled waiter leaves at once; the others still wait")
    func cancelWaiter() async throws {
        let (line, counts) = observedLine()
        let stub = StubTransport { _, _ in .status(200) }
        let executor = RequestExecutor(transport: stub, line: line)
        line.hold()
        let cancelled = Task { try await executor.send(Ping(), baseURL: authBase) }
        let kept = Task { try await executor.send(Ping(), baseURL: authBase).statusCode }
        await waitFor(2, in: counts)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(line.waitingCount == 1)
        line.release()
        #expect(try await kept.value == 200)
        #expect(stub.requestCount == 1)
    }
}

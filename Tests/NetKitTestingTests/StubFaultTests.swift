import Foundation
import NetCore
import NetKitLock
@testable import NetKitTesting
import Testing

/// Replies that misbehave as a server would (``StubFault``), over `StubTransport` and through the engine; and the
/// lazily produced bodies a replay transport delivers (a file, piece sizes, pauses).
@Suite("Stub faults", .timeLimit(.minutes(10)))
struct StubFaultTests {
    /// Records each wait and returns at once (failing when the task is cancelled): no test waits on the wall clock.
    final class TestClock: Clock, Sendable {
        private let recorded = Lock<[Duration]>([])
        let now = ContinuousClock.now
        var minimumResolution: Duration { .nanoseconds(1) }
        /// The waits asked for, in order.
        var waits: [Duration] { recorded.withLock { $0 } }

        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
            try Task.checkCancellation()
            recorded.withLock { $0.append(deadline - now) }
        }
    }

    struct Item: Codable, Equatable, Sendable {
        let id: Int
    }

    struct Fetch: Endpoint {
        typealias Response = Item
        var path: String { "/v1/items/1" }
        var method: HTTPMethod { .get }
        var retryPolicy = RetryPolicy()
        var idleTimeout: Duration?
    }

    let url = URL(string: "https://api.test/v1/items/1")!
    let base = URL(string: "https://api.test")!

    func request(idleTimeout: Duration? = nil, progress: NetworkProgress? = nil) throws -> TransportRequest {
        var request = TransportRequest(head: try HTTPRequestHead(url: url), progress: progress)
        request.idleTimeout = idleTimeout
        return request
    }

    /// The body's chunks as text, and the error it ended with.
    func drain(_ body: ResponseBody) async -> (chunks: [String], error: TransportError.Kind?) {
        var chunks: [String] = []
        do {
            for try await chunk in body { chunks.append(String(decoding: chunk, as: UTF8.self)) }
            return (chunks, nil)
        } catch {
            return (chunks, (error as? TransportError)?.kind ?? .other)
        }
    }

    func text(_ chunks: String...) -> [Data] { chunks.map { Data($0.utf8) } }

    // MARK: Each fault over the stub

    @Test("a reset before the head is thrown by send as connectionReset; nothing is told sent")
    func resetBeforeHead() async throws {
        let stub = StubTransport(replies: [.json("{}").fault(.resetBeforeHead)])
        let told = Lock<[TransportRequest.SentPart]>([])
        var request = try request()
        request.onSent = { part in told.withLock { $0.append(part) } }
        let error = await #expect(throws: TransportError.self) { try await stub.send(request) }
        #expect(error?.kind == .connectionReset)
        #expect(error.map { "\($0)" }?.contains("StubFault.resetBeforeHead") == true)
        #expect(told.withLock { $0 }.isEmpty)
        #expect(stub.requestCount == 1)
    }

    @Test("a close mid-body delivers the first bytes, splitting a chunk, then ends with connectionLost")
    func closeMidBody() async throws {
        let stub = StubTransport(replies: [
            StubTransport.Reply(chunks: text("abc", "defgh")).fault(.closeMidBody(afterBytes: 5)),
            StubTransport.Reply(chunks: text("ab")).fault(.closeMidBody(afterBytes: 9)),
            StubTransport.Reply(chunks: text("ab")).fault(.closeMidBody(afterBytes: 0)),
        ])
        let cut = await drain(try await stub.send(request()).body)
        #expect(cut.chunks == ["abc", "de"] && cut.error == .connectionLost)
        let whole = await drain(try await stub.send(request()).body)
        #expect(whole.chunks == ["ab"] && whole.error == .connectionLost, "a shorter body comes whole, then the close")
        let none = await drain(try await stub.send(request()).body)
        #expect(none.chunks.isEmpty && none.error == .connectionLost)
    }

    @Test("a stall at the start is slept on the stub's clock; longer than the idle timeout it throws timedOut")
    func stallAtStart() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(reply: .text("late").fault(.stallAtStart(.seconds(30))).fault(.stallAtStart(.seconds(5))))
        let late = try await stub.send(request(idleTimeout: .seconds(35)))
        #expect(await drain(late.body).chunks == ["late"])
        #expect(clock.waits == [.seconds(35)], "stalls in a row are one silence")
        let error = await #expect(throws: TransportError.self) {
            try await stub.send(request(idleTimeout: .seconds(10)))
        }
        #expect(error?.kind == .timedOut)
        #expect(clock.waits == [.seconds(35), .seconds(10)], "a timed-out stall lasts the idle timeout")
    }

    @Test("a stall before a reset is waited first; the reply's delay comes before both")
    func stallThenReset() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(reply: .json("{}").delayed(by: .seconds(1)).fault(.stallAtStart(.seconds(2))).fault(.resetBeforeHead))
        let error = await #expect(throws: TransportError.self) { try await stub.send(request()) }
        #expect(error?.kind == .connectionReset)
        #expect(clock.waits == [.seconds(1), .seconds(2)])
    }

    @Test("a stall mid-body stops the body after its bytes, then goes on; past the idle timeout it ends timedOut")
    func stallMidBody() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(reply: .text("abcdefgh").fault(.stallMidBody(afterBytes: 4, for: .seconds(10))))
        let slow = await drain(try await stub.send(request(idleTimeout: .seconds(10))).body)
        #expect(slow.chunks == ["abcd", "efgh"] && slow.error == nil)
        #expect(clock.waits == [.seconds(10)])
        let stopped = await drain(try await stub.send(request(idleTimeout: .seconds(2))).body)
        #expect(stopped.chunks == ["abcd"] && stopped.error == .timedOut)
        #expect(clock.waits == [.seconds(10), .seconds(2)])
    }

    @Test("a declared length never reached: Content-Length and progress count the missing bytes, the body ends lost")
    func declaredLengthNotReached() async throws {
        let stub = StubTransport(replies: [
            StubTransport.Reply(headers: ["Content-Length": "8"], chunks: text("abc", "defgh"))
                .fault(.declaredLengthNotReached(missingBytes: 10))
        ])
        let progress = NetworkProgress()
        let response = try await stub.send(request(progress: progress))
        #expect(response.declaredLength == 18)
        #expect(response.head.headerFields.values(for: "Content-Length") == ["18"])
        let body = await drain(response.body)
        #expect(body.chunks == ["abc", "defgh"] && body.error == .connectionLost)
        #expect(progress.bytesReceived == 8 && progress.totalBytesToReceive == 18)
    }

    @Test("a trickle delivers small pieces, one every interval; a gap past the idle timeout ends the body timedOut")
    func trickle() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(
            reply: StubTransport.Reply(chunks: text("abcd", "efgh")).fault(.trickle(bytes: 3, every: .seconds(1))))
        let slow = await drain(try await stub.send(request()).body)
        #expect(slow.chunks == ["abc", "d", "efg", "h"] && slow.error == nil)
        #expect(clock.waits == [.seconds(1), .seconds(1), .seconds(1)], "the first piece comes at once")
        let stopped = await drain(try await stub.send(request(idleTimeout: .milliseconds(500))).body)
        #expect(stopped.chunks == ["abc"] && stopped.error == .timedOut)
        #expect(clock.waits.last == .milliseconds(500))
    }

    @Test("faults combine: a trickle that closes mid-body, with progress counted as pieces come")
    func combined() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(
            reply: .text("abcdefghij").fault(.trickle(bytes: 4, every: .seconds(2))).fault(.closeMidBody(afterBytes: 6))
        )
        let progress = NetworkProgress()
        let response = try await stub.send(request(progress: progress))
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("abcd".utf8))
        #expect(progress.bytesReceived == 4 && progress.totalBytesToReceive == 10)
        #expect(try await iterator.next() == Data("ef".utf8))
        await #expect(throws: TransportError.self) { try await iterator.next() }
        #expect(clock.waits == [.seconds(2)])
        #expect(StubFault.trickle(bytes: 4, every: .seconds(2)).description == "trickle(bytes: 4, every: 2.0 seconds)")
    }

    @Test("a reply without faults is delivered as before: every chunk at once, then its body error")
    func unchanged() async throws {
        let stub = StubTransport(replies: [
            StubTransport.Reply(chunks: text("a", "", "b"), bodyError: TransportError(.other))
        ])
        let progress = NetworkProgress()
        let body = await drain(try await stub.send(request(progress: progress)).body)
        #expect(body.chunks == ["a", "", "b"] && body.error == .other)
        #expect(progress.bytesReceived == 2)
    }

    // MARK: Through the engine

    @Test("through the engine: a reset before the head, then a close mid-body, are retried by the request's policy")
    func engineRetriesFaults() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(replies: [
            .json(#"{"id":1}"#).fault(.resetBeforeHead),
            .json(#"{"id":1}"#).fault(.closeMidBody(afterBytes: 3)),
            .json(#"{"id":1}"#),
        ])
        let executor = RequestExecutor(transport: stub, clock: clock)
        let retried = Fetch(retryPolicy: RetryPolicy(maxRetryCount: 2, delay: 0.1, jitter: .none))
        #expect(try await executor.send(retried, baseURL: base) == Item(id: 1))
        #expect(stub.requestCount == 3)
        let once = StubTransport(clock: clock)
        once.stub(reply: .json(#"{"id":1}"#).fault(.resetBeforeHead))
        let error = await #expect(throws: TransportError.self) {
            try await RequestExecutor(transport: once, clock: clock).send(Fetch(), baseURL: base)
        }
        #expect(error?.kind == .connectionReset, "without a retry policy the reset reaches the caller")
    }

    @Test("through the engine: a stall longer than the request's idle timeout fails it with timedOut, or is retried")
    func engineTimesOutStall() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(replies: [.json(#"{"id":1}"#).fault(.stallAtStart(.seconds(60))), .json(#"{"id":1}"#)])
        let executor = RequestExecutor(transport: stub, clock: clock)
        let error = await #expect(throws: TransportError.self) {
            try await executor.send(Fetch(idleTimeout: .seconds(5)), baseURL: base)
        }
        #expect(error?.kind == .timedOut)
        #expect(clock.waits == [.seconds(5)])
        stub.removeAllStubs()
        stub.stub(replies: [
            .json(#"{"id":1}"#).fault(.stallMidBody(afterBytes: 2, for: .seconds(60))), .json(#"{"id":1}"#),
        ])
        let retried = Fetch(
            retryPolicy: RetryPolicy(maxRetryCount: 1, delay: 0.1, jitter: .none), idleTimeout: .seconds(5))
        #expect(try await executor.send(retried, baseURL: base) == Item(id: 1))
    }

    // MARK: Bodies produced piece by piece

    @Test("a body read from a file in the given piece sizes, each after its delay, the rest in one last piece")
    func bodyFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("StubFaultTests-\(UUID()).bin")
        try Data("abcdefghijkl".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        var reply = StubTransport.Reply.status(200)
        reply.bodyFile = file
        reply.chunkSizes = [2, 0, 3, 4]
        reply.chunkDelays = [.seconds(1), .seconds(2), .zero, .seconds(3)]
        stub.stub(reply: reply)
        let progress = NetworkProgress()
        let body = await drain(try await stub.send(request(progress: progress)).body)
        #expect(body.chunks == ["ab", "cde", "fghi", "jkl"] && body.error == nil)
        #expect(clock.waits == [.seconds(1), .seconds(2), .seconds(3)], "an empty piece's delay goes before the next")
        #expect(progress.bytesReceived == 12 && progress.totalBytesToReceive == 12)

        reply.chunkSizes = nil
        reply.chunkDelays = nil
        stub.removeAllStubs()
        stub.stub(
            reply: reply.fault(.closeMidBody(afterBytes: 5)).fault(.stallMidBody(afterBytes: 1, for: .seconds(4))))
        let faulty = await drain(try await stub.send(request()).body)
        #expect(faulty.chunks == ["a", "bcde"] && faulty.error == .connectionLost, "faults apply over a file too")
        #expect(clock.waits.last == .seconds(4))

        var missing = StubTransport.Reply.status(200)
        missing.bodyFile = file.appendingPathExtension("missing")
        stub.removeAllStubs()
        stub.stub(reply: missing)
        await #expect(throws: (any Error).self) { try await stub.send(request()) }
    }

    @Test("chunk delays pace chunks in memory too, and the idle timeout ends a pause longer than it")
    func chunkDelays() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        var reply = StubTransport.Reply(chunks: text("a", "b", "c"))
        reply.chunkDelays = [.zero, .seconds(1)]
        stub.stub(reply: reply)
        #expect(await drain(try await stub.send(request()).body).chunks == ["a", "b", "c"])
        #expect(clock.waits == [.seconds(1)])
        reply.chunkDelays = [.zero, .seconds(9)]
        stub.removeAllStubs()
        stub.stub(reply: reply)
        let stopped = await drain(try await stub.send(request(idleTimeout: .seconds(3))).body)
        #expect(stopped.chunks == ["a"] && stopped.error == .timedOut)
    }

    @Test("a consumer that stops reading stops the body: nothing more is read or waited for")
    func consumerStopsEarly() async throws {
        let clock = TestClock()
        let stub = StubTransport(clock: clock)
        stub.stub(reply: .text("abcdefgh").fault(.trickle(bytes: 2, every: .seconds(1))))
        let response = try await stub.send(request())
        for try await chunk in response.body {
            #expect(chunk == Data("ab".utf8))
            break
        }
        // The body is produced by its reader, in the reader's task: with the reader gone nothing runs, so what the
        // clock saw is final.
        #expect(clock.waits.isEmpty)
    }

    @Test("a consumer cancelled while the body stalls stops at once with CancellationError")
    func cancelledDuringStall() async throws {
        let stub = StubTransport()  // the continuous clock: an hour that only cancellation can cut short
        stub.stub(reply: .text("abcd").fault(.stallMidBody(afterBytes: 2, for: .seconds(3600))))
        let response = try await stub.send(request())
        let started = AsyncStream<Void>.makeStream()
        let reader = Task {
            var chunks = 0
            for try await _ in response.body {
                chunks += 1
                started.continuation.yield()
            }
            return chunks
        }
        var arrivals = started.stream.makeAsyncIterator()
        _ = await arrivals.next()  // the first piece came: the reader is now at, or on its way to, the stall
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
    }
}

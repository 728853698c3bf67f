import Foundation
import NetCore
import NetStreaming
import NetKitLock
import Testing

/// The event source's reconnection loop over connections made in memory, slept on a clock that does not sleep: how
/// many connections a server can get out of it in a given amount of clock time.
@Suite("Event source backoff, without I/O")
struct EventSourceBackoffTests {
    /// An event stream whose body is `text`, ending cleanly after it.
    static func stream(_ text: String) -> StreamingResponse {
        StreamingResponse(
            statusCode: 200, headers: ["Content-Type": "text/event-stream"], body: ResponseBody(data: Data(text.utf8)))
    }

    @Test("retry: 0, then every connection fails: 7 connections in 60 s of clock time, not one per millisecond")
    func retryZeroThenFailing() async throws {
        let connections = Lock(0)
        let clock = VirtualClock(budget: .seconds(60))
        // A limit far above the bound, so that the test ends even without a floor.
        let source = EventSource(policy: EventSourcePolicy(maximumAttempts: 1000), clock: clock, randomUnit: { 0 }) {
            _ in
            let number = connections.withLock {
                $0 += 1
                return $0
            }
            guard number == 1 else { throw TransportError(.connectionLost) }
            return Self.stream("retry: 0\ndata: hello\n\n")
        }
        var iterator = source.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "hello")
        await #expect(throws: VirtualClock.BudgetSpent.self) { _ = try await iterator.next() }
        // Waits with the lowest jitter: the floor, then doubling from it; the next (32 s) would pass the budget.
        #expect(clock.waits == [1, 1, 2, 4, 8, 16].map { Duration.seconds($0) })
        #expect(connections.withLock { $0 } == 7)
    }

    @Test("a stream that delivers an event on every connection is reconnected to after the server's retry, floored")
    func healthyStreamsWaitTheFloor() async throws {
        let clock = VirtualClock()
        let source = EventSource(clock: clock, randomUnit: { 1 }) { _ in Self.stream("retry: 0\ndata: x\n\n") }
        var iterator = source.makeAsyncIterator()
        for _ in 0..<5 { #expect(try await iterator.next()?.data == "x") }
        #expect(clock.waits == Array(repeating: .seconds(1), count: 4))
        #expect(iterator.connections == 5)
        #expect(iterator.reconnectionTime == .zero)
    }

    @Test("streams that end before their first event back off like failures, and the limit still ends the source")
    func emptyStreamsBackOff() async throws {
        let clock = VirtualClock()
        let source = EventSource(policy: EventSourcePolicy(maximumAttempts: 4), clock: clock, randomUnit: { 1 }) { _ in
            Self.stream("retry: 0\n\n")
        }
        var iterator = source.makeAsyncIterator()
        await #expect(throws: EventSourceError.self) { _ = try await iterator.next() }
        #expect(clock.waits == [2, 4, 8].map { Duration.seconds($0) })
        #expect(iterator.connections == 4)
    }
}

import NetCore
import NetStreaming
import Testing

/// The event source's reconnection decisions as a value: what each connection did goes in, the next wait (or the
/// end) comes out. No I/O, no clock, a fixed random unit.
@Suite("Reconnect backoff")
struct ReconnectBackoffTests {
    static let lost = TransportError(.connectionLost)

    /// The waits of `attempts` reconnections in a row to a server that fails every one, after a first connection
    /// that delivered an event and then broke, having sent `retry`.
    static func waits(
        _ policy: EventSourcePolicy = EventSourcePolicy(), retry: Duration?, attempts: Int, randomUnit: Double
    ) -> [Duration] {
        var backoff = ReconnectBackoff(policy: policy)
        backoff.connecting()
        backoff.delivered()
        backoff.connectionEnded(by: lost, serverRetry: retry)
        var waits: [Duration] = []
        for _ in 0..<attempts {
            guard case .wait(let wait) = backoff.reconnection(randomUnit: randomUnit) else { break }
            waits.append(wait)
            backoff.connecting()
            backoff.connectionFailed(lost)
        }
        return waits
    }

    @Test("retry: 0 waits the 1 s floor; each failure in a row doubles the wait from there, up to the 60 s cap")
    func retryZeroBacksOff() {
        #expect(
            Self.waits(retry: .zero, attempts: 10, randomUnit: 1)
                == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60].map { Duration.seconds($0) })
        // Jitter takes up to half of each wait off, never below the floor.
        #expect(
            Self.waits(retry: .zero, attempts: 10, randomUnit: 0)
                == [1, 1, 2, 4, 8, 16, 30, 30, 30, 30].map { Duration.seconds($0) })
        for unit in stride(from: 0.0, through: 1, by: 0.125) {
            let waits = Self.waits(retry: .milliseconds(1), attempts: 12, randomUnit: unit)
            #expect(waits.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(60) }, "randomUnit \(unit): \(waits)")
        }
    }

    @Test("a server's retry above the floor is honoured, jittered between half and all of it")
    func retryAboveFloor() {
        #expect(Self.waits(retry: .seconds(5), attempts: 2, randomUnit: 1) == [.seconds(5), .seconds(10)])
        #expect(Self.waits(retry: .seconds(5), attempts: 2, randomUnit: 0) == [.milliseconds(2500), .seconds(5)])
        // Before any retry: the policy's initial delay.
        #expect(Self.waits(retry: nil, attempts: 1, randomUnit: 1) == [.seconds(3)])
    }

    @Test("a connection that delivers an event resets the backoff; one that ends without an event is a failure")
    func healthyStreamResets() {
        var backoff = ReconnectBackoff(policy: EventSourcePolicy())
        for _ in 0..<4 {
            backoff.connecting()
            backoff.connectionFailed(Self.lost)
        }
        #expect(backoff.failures == 4)
        backoff.connecting()
        backoff.connectionEnded(by: nil, serverRetry: .zero)
        #expect(backoff.failures == 5, "ended cleanly, but before its first event")
        #expect((backoff.lastError as? TransportError)?.kind == .connectionLost)
        guard case .wait(let long) = backoff.reconnection(randomUnit: 1) else { return #expect(Bool(false)) }
        #expect(long == .seconds(32))
        backoff.connecting()
        backoff.delivered()
        backoff.connectionEnded(by: Self.lost, serverRetry: nil)
        #expect(backoff.failures == 0, "a healthy stream, broken after an event")
        #expect(backoff.reconnectionTime == .zero, "the server's last retry is kept")
        guard case .wait(let short) = backoff.reconnection(randomUnit: 1) else { return #expect(Bool(false)) }
        #expect(short == .seconds(1))
        #expect(backoff.connections == 6)
    }

    @Test("more failures in a row than maximumAttempts end the source with the count and the last error")
    func limit() {
        var backoff = ReconnectBackoff(policy: EventSourcePolicy(maximumAttempts: 3))
        guard case .connectNow = backoff.reconnection(randomUnit: 0) else { return #expect(Bool(false)) }
        for attempt in 1...3 {
            backoff.connecting()
            backoff.connectionFailed(TransportError(.connectionReset, detail: "attempt \(attempt)"))
            let decision = backoff.reconnection(randomUnit: 0)
            if attempt < 3 {
                guard case .wait = decision else { return #expect(Bool(false), "attempt \(attempt)") }
            } else {
                guard case .giveUp(.reconnectLimitReached(let attempts, let last)) = decision else {
                    return #expect(Bool(false))
                }
                #expect(attempts == 3)
                #expect((last as? TransportError)?.detail == "attempt 3")
            }
        }
    }

    @Test("minimumDelay: yours is kept, below 1 ms counts as 1 ms, above maximumDelay wins over it")
    func floorSettings() {
        let lowered = EventSourcePolicy(minimumDelay: .milliseconds(5))
        #expect(lowered.delay(afterFailures: 0, serverRetry: .zero, randomUnit: 0) == .milliseconds(5))
        #expect(lowered.delay(afterFailures: 0, serverRetry: .milliseconds(20), randomUnit: 1) == .milliseconds(20))
        // Waits still double from the least floor, so a failing server is never reconnected to in a loop.
        let none = EventSourcePolicy(minimumDelay: .zero)
        #expect(none.minimumDelay == .zero)
        #expect(none.delay(afterFailures: 0, serverRetry: .zero, randomUnit: 1) == .milliseconds(1))
        #expect(none.delay(afterFailures: 10, serverRetry: .zero, randomUnit: 1) == .milliseconds(1024))
        let high = EventSourcePolicy(minimumDelay: .seconds(90))
        #expect(high.delay(afterFailures: 3, serverRetry: .zero, randomUnit: 0) == .seconds(90))
        #expect(EventSourcePolicy().minimumDelay == EventSourcePolicy.defaultMinimumDelay)
        #expect(EventSourcePolicy.defaultMinimumDelay == .seconds(1))
    }
}

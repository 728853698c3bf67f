import Testing

@testable import NetCore

/// `MonotonicInstant` stands in for `ContinuousClock.Instant` in NetCore's stored values: it must give back exactly
/// the instant it was given, and order and measure like it.
@Suite struct MonotonicInstantTests {
    static let offsets: [Duration] = [
        .zero, .nanoseconds(1), .nanoseconds(-1), .milliseconds(1_500), .seconds(-86_400), .seconds(10 * 365 * 86_400),
    ]

    @Test("an instant comes back exactly", arguments: offsets)
    func roundTrip(_ offset: Duration) {
        let instant = ContinuousClock.now.advanced(by: offset)
        #expect(MonotonicInstant(instant).instant == instant)
    }

    @Test("order, distance and addition agree with the clock's own", arguments: offsets)
    func arithmetic(_ offset: Duration) {
        let base = ContinuousClock.now
        let other = base.advanced(by: offset)
        let (storedBase, storedOther) = (MonotonicInstant(base), MonotonicInstant(other))
        #expect((storedBase < storedOther) == (base < other))
        #expect(storedOther - storedBase == other - base)
        #expect((storedBase + offset).instant == other)
        #expect((storedBase + offset) == storedOther)
    }

    @Test("the public instants of metrics, responses and contexts read back what was set")
    func publicProperties() {
        let start = ContinuousClock.now
        var metrics = RequestMetrics(start: start)
        metrics.responseHead = start.advanced(by: .milliseconds(3))
        metrics.end = start.advanced(by: .milliseconds(7))
        #expect(metrics.start == start)
        #expect(metrics.timeToResponseHead == .milliseconds(3))
        #expect(metrics.duration == .milliseconds(7))
        metrics.end = nil
        #expect(metrics.end == nil)

        var response = TransportResponse(head: HTTPResponseHead(statusCode: 200), body: .empty, headReceivedAt: start)
        #expect(response.headReceivedAt == start)
        response.headReceivedAt = start.advanced(by: .seconds(1))
        #expect(response.headReceivedAt - start == .seconds(1))

        let context = PluginContext(
            requestNumber: 1, attempt: 1, reason: .initial, isStreaming: false, startedAt: start)
        #expect(context.startedAt == start)
    }
}

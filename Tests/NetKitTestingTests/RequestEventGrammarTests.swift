import NetCore
import NetKitTesting
import Testing

/// The grammar accepts the sequences the engine makes and names the first fault of those it must refuse.
@Suite("Request event grammar")
struct RequestEventGrammarTests {
    typealias Kind = RequestEvent.Kind

    static let attempt: [Kind] = [
        .attemptStart(attempt: 1, reason: .initial), .requestStart, .responseHead(status: 200),
        .responseBodyEnd(bytes: 2), .attemptEnd(attempt: 1, status: 200),
    ]
    static let origin = HTTPOrigin(scheme: "https", host: "api.test", port: nil)
    static let start = Kind.callStart(method: .get, origin: origin)

    @Test(
        "sequences the engine makes are accepted",
        arguments: [
            [start] + attempt + [.callEnd(status: 200)],
            [start, .queued, .dequeued] + attempt + [.callEnd(status: 200)],
            // A wait for one of the host's request slots, inside the attempt and before it goes to the transport;
            // one that timed out ends the attempt without a request_start.
            [start, attempt[0], .queued, .dequeued] + attempt.dropFirst() + [.callEnd(status: 200)],
            [
                start, .attemptStart(attempt: 1, reason: .initial), .queued, .dequeued,
                .attemptFailed(attempt: 1, reason: "Waited 100 ms"), .callFailed(reason: "Waited 100 ms"),
            ],
            [
                start, .attemptStart(attempt: 1, reason: .initial), .requestStart, .responseHead(status: 503),
                .attemptEnd(attempt: 1, status: 503), .retryScheduled(wait: .seconds(1), reason: "HTTP 503"),
                .attemptStart(attempt: 2, reason: .retry(wait: .seconds(1))), .requestStart,
                .attemptFailed(attempt: 2, reason: "reset"), .retryBudgetExhausted(origin: origin),
                .callFailed(reason: "reset"),
            ],
            [
                start, .attemptStart(attempt: 1, reason: .initial), .responseHead(status: 401),
                .attemptEnd(attempt: 1, status: 401), .credentialRenewalStart, .credentialRenewalEnd(renewed: true),
                .attemptStart(attempt: 2, reason: .refreshedCredential), .cacheHit, .responseHead(status: 200),
                .attemptEnd(attempt: 2, status: 200), .callEnd(status: 200),
            ],
            [
                start, .attemptStart(attempt: 1, reason: .initial), .requestStart,
                .attemptFailed(attempt: 1, reason: "cancelled"), .cancelled, .callFailed(reason: "cancelled"),
            ],
            [start, .callFailed(reason: "refused before sending")],
            // What the transport sent, once per exchange: a resend tells it again.
            [
                start, .attemptStart(attempt: 1, reason: .initial), .requestStart, .requestHeadSent,
                .requestBodySent(bytes: 5), .transparentRetry(reason: "reset"), .requestStart, .requestHeadSent,
                .requestBodySent(bytes: 5), .responseHead(status: 200), .attemptEnd(attempt: 1, status: 200),
                .callEnd(status: 200),
            ],
            [
                start, .attemptStart(attempt: 1, reason: .initial), .requestStart, .requestHeadSent,
                .attemptFailed(attempt: 1, reason: "reset"), .callFailed(reason: "reset"),
            ],
        ] as [[Kind]])
    func accepted(_ kinds: [Kind]) {
        #expect(RequestEventGrammar.violations(ofRequest: kinds) == [])
    }

    @Test(
        "sequences that break it are refused, naming the event",
        arguments: [
            ([] as [Kind], "no event"),
            (attempt + [.callEnd(status: 200)], "event 1 (attempt_start): the first event must be call_start"),
            ([start] + attempt, "the call never ended"),
            ([start] + attempt.dropLast() + [Kind.callEnd(status: 200)], "call_end inside attempt 1"),
            ([start] + attempt + [.callEnd(status: 200), .callEnd(status: 200)], "after the call ended"),
            ([start, .queued] + attempt, "must be dequeued"),
            ([start, attempt[0], .queued] + attempt.dropFirst(), "must be dequeued"),
            (
                [start, attempt[0], .requestStart, .queued, .dequeued] + attempt.dropFirst(2),
                "queued inside attempt 1 after its request_start, or twice"
            ),
            ([start, .credentialRenewalStart, .callFailed(reason: "x")], "a renewal must end"),
            ([start, .attemptStart(attempt: 2, reason: .initial)], "attempt 2 began after attempt 0"),
            (
                [start, .attemptStart(attempt: 1, reason: .initial), .attemptEnd(attempt: 2, status: 200)],
                "attempt 2 ended while 1 ran"
            ),
            (
                [start, .attemptStart(attempt: 1, reason: .initial), .responseHead(status: 200), .requestStart],
                "request_start twice, or after the head"
            ),
            (
                [start, .attemptStart(attempt: 1, reason: .initial), .responseBodyEnd(bytes: 1)],
                "a body end without a head"
            ),
            ([start, .responseHead(status: 200)], "response_head outside an attempt"),
            (
                [start, attempt[0], .requestHeadSent], "request_head_sent without request_start"
            ),
            (
                [start, attempt[0], .requestStart, .requestHeadSent, .requestHeadSent],
                "request_head_sent without request_start, twice"
            ),
            (
                [start, attempt[0], .requestStart, .requestBodySent(bytes: 1)],
                "request_body_sent without request_head_sent"
            ),
            (
                [
                    start, attempt[0], .requestStart, .requestHeadSent, .responseHead(status: 200),
                    .requestBodySent(bytes: 1),
                ],
                "or after the response head"
            ),
            ([start, .cancelled, .callEnd(status: 200)], "cancelled must be followed by call_failed"),
        ] as [([Kind], String)])
    func refused(_ kinds: [Kind], _ fault: String) {
        let violations = RequestEventGrammar.violations(ofRequest: kinds)
        #expect(violations.count == 1)
        #expect(violations.first?.contains(fault) == true, "\(violations)")
    }

    @Test("interleaved requests are checked each on its own, and a fault names its request")
    func interleaved() {
        let time = ContinuousClock.now
        func event(_ number: UInt64, _ kind: Kind) -> RequestEvent {
            RequestEvent(requestNumber: number, kind: kind, time: time)
        }
        let good = [Self.start] + Self.attempt + [.callEnd(status: 200)]
        var events: [RequestEvent] = []
        for (first, second) in zip(good, good) {
            events += [event(1, first), event(2, second)]
        }
        #expect(RequestEventGrammar.violations(in: events) == [])
        events.removeLast()
        #expect(
            RequestEventGrammar.violations(in: events) == [
                "request #2: the call never ended (no call_end or call_failed)"
            ])
    }
}

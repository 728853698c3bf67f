import Foundation
import NetKit
import NetKitLock

/// A transport that answers with heads written field by field (a name may repeat, as `Set-Cookie` does on the
/// wire), and that can say its head arrived before it hands the response over, as a transport that delivers the
/// body whole does.
///
/// `StubTransport`'s replies take headers as a dictionary, which cannot hold a name twice; this one takes
/// ``HTTPResponseHead``s.
final class ScriptedHeadTransport: HTTPTransport {
    /// One answer: a head and a body.
    struct Answer: Sendable {
        var head: HTTPResponseHead
        var body: Data
    }

    /// When one answer's head arrived and when the response was handed over.
    struct Delivery: Sendable, Equatable {
        let headReceivedAt: ContinuousClock.Instant
        let handedOverAt: ContinuousClock.Instant
    }

    private let answers: [Answer]
    /// Whether the response is handed over only once the clock has moved on from the head's instant.
    private let handsOverLate: Bool
    private let state = Lock<(requests: [TransportRequest], deliveries: [Delivery])>(([], []))

    /// Answers the n-th request with `answers[n]` (the last one again once they run out).
    init(_ answers: [Answer], handsOverLate: Bool = false) {
        precondition(!answers.isEmpty)
        self.answers = answers
        self.handsOverLate = handsOverLate
    }

    /// Every request received, in order.
    var requests: [TransportRequest] { state.withLock { $0.requests } }
    /// When each answer's head arrived and was handed over, in order.
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let headReceivedAt = ContinuousClock.now
        var handedOverAt = ContinuousClock.now
        // The clock moves on within nanoseconds: no sleep, and the two instants differ on every machine.
        while handsOverLate && handedOverAt <= headReceivedAt { handedOverAt = .now }
        let answer = state.withLock { state in
            state.requests.append(request)
            state.deliveries.append(Delivery(headReceivedAt: headReceivedAt, handedOverAt: handedOverAt))
            return answers[min(state.requests.count - 1, answers.count - 1)]
        }
        return TransportResponse(
            head: answer.head, body: ResponseBody(data: answer.body), headReceivedAt: headReceivedAt)
    }
}

extension ScriptedHeadTransport.Answer {
    /// A head of `status` with `fields` in this order, and `body`.
    static func fields(_ status: Int, _ fields: [(name: String, value: String)], body: String = "") throws -> Self {
        Self(
            head: HTTPResponseHead(statusCode: status, headerFields: try HTTPHeaderFields(fields)),
            body: Data(body.utf8))
    }
}

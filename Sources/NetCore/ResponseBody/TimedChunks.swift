#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A body whose every wait for a chunk is bounded by ``BodyTimeouts`` (``DeadlineWait``): when the time runs out
/// the wait is cancelled, which stops the transfer (the inner body's iterator abandons it), and the body ends with
/// ``TransportError/Kind/timedOut``. One timer watches every wait of an iterator, whatever the number of chunks.
struct TimedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: ResponseBody
    let timeouts: BodyTimeouts

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), timeouts: timeouts, lastActivity: .now)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBody.AsyncIterator
        let timeouts: BodyTimeouts
        var lastActivity: ContinuousClock.Instant
        let wait = DeadlineWait()

        mutating func next() async throws -> Data? {
            guard let wake = timeouts.nextCheck(lastActivity: lastActivity) else { return try await base.next() }
            do {
                let chunk = try await wait.next(&base, until: wake)
                lastActivity = .now
                return chunk
            } catch is DeadlineWait.Expired {
                throw timeouts.expiry(at: .now, lastActivity: lastActivity)
                    ?? TransportError(.timedOut, host: timeouts.host, detail: "the request's timeout passed")
            }
        }
    }
}

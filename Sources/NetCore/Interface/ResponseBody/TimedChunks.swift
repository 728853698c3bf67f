#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A body whose every wait for a chunk is bounded by ``BodyTimeouts``: the wait runs in a child task beside a
/// timer, and when the timer wins the wait is cancelled, which stops the transfer (the inner body's iterator
/// abandons it), and the body ends with ``TransportError/Kind/timedOut``.
struct TimedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: ResponseBody
    let timeouts: BodyTimeouts

    func makeAsyncIterator() -> Iterator {
        Iterator(box: Box(base.makeAsyncIterator()), timeouts: timeouts, lastActivity: .now)
    }

    /// The inner iterator, handed to the child task that waits on it.
    ///
    /// `@unchecked Sendable`: one task touches it at a time. The caller hands it to one child per wait, and the
    /// task group does not return before that child has finished, so the caller's next wait never overlaps it.
    final class Box: @unchecked Sendable {
        var iterator: ResponseBody.AsyncIterator

        init(_ iterator: ResponseBody.AsyncIterator) {
            self.iterator = iterator
        }
    }

    /// The timer's win.
    private struct Expired: Error {}

    struct Iterator: AsyncIteratorProtocol {
        let box: Box
        let timeouts: BodyTimeouts
        var lastActivity: ContinuousClock.Instant

        mutating func next() async throws -> Data? {
            guard let wake = timeouts.nextCheck(lastActivity: lastActivity) else {
                return try await box.iterator.next()
            }
            let box = self.box
            do {
                let chunk = try await withThrowingTaskGroup(of: Data?.self) { group in
                    group.addTask { try await box.iterator.next() }
                    group.addTask {
                        try await Task.sleep(until: wake, clock: .continuous)
                        throw Expired()
                    }
                    defer { group.cancelAll() }
                    // The first to finish decides: a chunk (or the end), or the timer.
                    return try await group.next() ?? nil
                }
                lastActivity = .now
                return chunk
            } catch is Expired {
                throw timeouts.expiry(at: .now, lastActivity: lastActivity)
                    ?? TransportError(.timedOut, host: timeouts.host, detail: "the request's timeout passed")
            }
        }
    }
}

import Foundation
import NetCore
import Testing

/// One timer for every wait of an iterator: elements that come in time leave nothing behind, and a wait that
/// outlasts its deadline still ends with `Expired`, however many waits came before it.
@Suite("Deadline waits", .timeLimit(.minutes(10)))
struct DeadlineWaitTests {
    /// Yields `count` elements at once, then waits for ever (until cancelled).
    struct ThenSilence: AsyncSequence, Sendable {
        let count: Int

        struct AsyncIterator: AsyncIteratorProtocol {
            var left: Int

            mutating func next() async throws -> Int? {
                guard left == 0 else {
                    left -= 1
                    return left
                }
                try await Task.sleep(for: .seconds(3600))
                return nil
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: count) }
    }

    @Test("elements that come before the deadline are handed over, then a silent wait expires")
    func expiresAfterManyWaits() async throws {
        // At high priority: 10,000 waits are 30,000 task hops, and in the full suite on 2 busy cores the executor ran
        // this test's default-priority hops behind everything else, past the time limit (twice, 78 and 82 s).
        try await Task(priority: .high) {
            let wait = DeadlineWait()
            var iterator = ThenSilence(count: 10_000).makeAsyncIterator()
            var seen = 0
            // A far deadline for the elements: each wait ends with its element, the timer sleeps on.
            while seen < 10_000, try await wait.next(&iterator, until: .now + .seconds(3600)) != nil { seen += 1 }
            #expect(seen == 10_000)
            // One timer for all of them: a cancelled sleep per element would each stay queued for the whole hour.
            #expect(wait.timersStarted == 1)
            await #expect(throws: DeadlineWait.Expired.self) {
                _ = try await wait.next(&iterator, until: .now + .milliseconds(50))
            }
        }.value
    }

    @Test("a deadline sooner than the running timer's wake still expires on time, not at the timer's")
    func soonerDeadline() async throws {
        let wait = DeadlineWait()
        var iterator = ThenSilence(count: 1).makeAsyncIterator()
        // Starts a timer that wakes in an hour.
        _ = try await wait.next(&iterator, until: .now + .seconds(3600))
        // Within the suite's time limit only if a timer for this deadline replaces the late one.
        await #expect(throws: DeadlineWait.Expired.self) {
            _ = try await wait.next(&iterator, until: .now + .milliseconds(50))
        }
    }

    @Test("a deadline already past expires at once, without waiting on the iterator")
    func pastDeadline() async throws {
        let wait = DeadlineWait()
        var iterator = ThenSilence(count: 0).makeAsyncIterator()
        await #expect(throws: DeadlineWait.Expired.self) { _ = try await wait.next(&iterator, until: .now) }
    }

    @Test("the end of the iterator is nil, before the deadline")
    func end() async throws {
        struct Empty: AsyncIteratorProtocol {
            mutating func next() async throws -> Int? { nil }
        }
        var iterator = Empty()
        #expect(try await DeadlineWait().next(&iterator, until: .now + .seconds(3600)) == nil)
    }
}

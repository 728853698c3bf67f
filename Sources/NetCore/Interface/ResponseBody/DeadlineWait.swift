/// Waits for an iterator's next element until a deadline: the wait runs in a child task beside a timer, and when the
/// timer wins the wait is cancelled (a transport's iterator stops its transfer then) and ``Expired`` is thrown.
///
/// One place for what a streamed body's timeouts (``ResponseBody/bounded(by:)``) and a transport's per-read idle
/// timeout (AsyncHTTPClientTransport's) both need.
package enum DeadlineWait {
    /// The deadline passed before the next element came.
    package struct Expired: Error {
        package init() {}
    }

    /// The iterator, handed to the child task that waits on it and back.
    ///
    /// `@unchecked Sendable`: one task touches it at a time. The caller hands it to one child per wait, and the task
    /// group does not return before that child has finished, so neither the caller nor the next wait overlaps it.
    private final class Box<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
        var iterator: Iterator

        init(_ iterator: Iterator) {
            self.iterator = iterator
        }
    }

    /// The next element of `iterator`, or `nil` at its end, if either comes before `deadline`.
    /// - Throws: ``Expired`` when the deadline passed first, or the iterator's error.
    package static func next<Iterator: AsyncIteratorProtocol>(
        _ iterator: inout Iterator, until deadline: ContinuousClock.Instant
    ) async throws -> Iterator.Element? where Iterator: SendableMetatype, Iterator.Element: Sendable {
        let box = Box(iterator)
        defer { iterator = box.iterator }
        return try await withThrowingTaskGroup(of: Iterator.Element?.self) { group in
            group.addTask { try await box.iterator.next() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw Expired()
            }
            defer { group.cancelAll() }
            // The first to finish decides: an element (or the end), or the timer.
            return try await group.next() ?? nil
        }
    }
}

import NetKitLock

/// What an observing plugin keeps about each request in flight, from `prepare` to `didFinish`.
///
/// `didFinish` and `wasCancelled` get no ``PluginContext``, and for a request that failed without a response their
/// `request` is the one built before any plugin ran, so neither its number nor a header added since can be read
/// there. What they do get is ``RequestMetrics/start``, the instant `prepare`'s ``PluginContext/startedAt`` also
/// carries: an entry opened in `prepare` under both is found again by that instant. Two requests started in the same
/// nanosecond are told apart by the caller's `matches`, else the older is taken; either way each entry is closed
/// once, so counts stay right.
package final class RequestLedger<Entry: Sendable>: Sendable {
    private struct Book {
        var entries: [UInt64: (start: ContinuousClock.Instant, entry: Entry)] = [:]
        var byStart: [ContinuousClock.Instant: [UInt64]] = [:]
    }

    private let book = Lock(Book())

    package init() {}

    /// Opens the entry of request `number`, which started at `start`.
    package func open(_ number: UInt64, startedAt start: ContinuousClock.Instant, _ entry: Entry) {
        book.withLock { book in
            if book.entries.updateValue((start, entry), forKey: number) == nil {
                book.byStart[start, default: []].append(number)
            }
        }
    }

    /// Changes the entry of request `number` and returns what `body` returns; `nil` when there is none.
    package func update<Result>(_ number: UInt64, _ body: (inout Entry) -> Result) -> Result? {
        book.withLock { book in
            guard var record = book.entries[number] else { return nil }
            let result = body(&record.entry)
            book.entries[number] = record
            return result
        }
    }

    /// The entry of the request that started at `start`, left open.
    package func entry(startedAt start: ContinuousClock.Instant, matching matches: (Entry) -> Bool = { _ in true })
        -> Entry?
    {
        book.withLock { book in
            Self.number(in: book, startedAt: start, matching: matches).flatMap { book.entries[$0]?.entry }
        }
    }

    /// Removes and returns the entry of the request that started at `start`; `nil` when there is none (the
    /// plugin's `prepare` never ran for it).
    package func close(startedAt start: ContinuousClock.Instant, matching matches: (Entry) -> Bool = { _ in true })
        -> Entry?
    {
        book.withLock { book in
            guard let number = Self.number(in: book, startedAt: start, matching: matches) else { return nil }
            let numbers = book.byStart[start, default: []].filter { $0 != number }
            book.byStart[start] = numbers.isEmpty ? nil : numbers
            return book.entries.removeValue(forKey: number)?.entry
        }
    }

    /// The number of entries open: 0 once every request has ended.
    package var count: Int {
        book.withLock { book in book.entries.count }
    }

    private static func number(
        in book: Book, startedAt start: ContinuousClock.Instant, matching matches: (Entry) -> Bool
    ) -> UInt64? {
        guard let numbers = book.byStart[start] else { return nil }
        if numbers.count == 1 { return numbers[0] }
        return numbers.first { book.entries[$0].map { matches($0.entry) } ?? false } ?? numbers.first
    }
}

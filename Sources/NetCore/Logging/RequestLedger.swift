import NetKitLock

/// What an observing plugin keeps about each request in flight, from `prepare` to `didFinish`, under the request's
/// ``PluginContext/requestNumber``.
///
/// Every hook gets the request's context, so the number `prepare` files an entry under is the one `didFinish` and
/// `wasCancelled` take it out by, however many requests overlap. A plain dictionary behind a lock, kept here only
/// because NetKit's logging, metrics and tracing plugins all need one; a plugin of your own does the same with its
/// own.
package final class RequestLedger<Entry: Sendable>: Sendable {
    private let entries = Lock([UInt64: Entry]())

    package init() {}

    /// Opens the entry of request `number`.
    package func open(_ number: UInt64, _ entry: Entry) {
        entries.withLock { $0[number] = entry }
    }

    /// Changes the entry of request `number` and returns what `body` returns; `nil` when there is none.
    package func update<Result>(_ number: UInt64, _ body: (inout Entry) -> Result) -> Result? {
        entries.withLock { entries in
            guard var entry = entries[number] else { return nil }
            let result = body(&entry)
            entries[number] = entry
            return result
        }
    }

    /// The entry of request `number`, left open.
    package func entry(_ number: UInt64) -> Entry? {
        entries.withLock { $0[number] }
    }

    /// Removes and returns the entry of request `number`; `nil` when there is none (the plugin's `prepare` never
    /// ran for it).
    package func close(_ number: UInt64) -> Entry? {
        entries.withLock { $0.removeValue(forKey: number) }
    }

    /// The number of entries open: 0 once every request has ended.
    package var count: Int {
        entries.withLock { $0.count }
    }
}

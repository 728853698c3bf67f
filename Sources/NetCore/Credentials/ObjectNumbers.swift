import NetKitLock

/// A number for each live object, never given to another object, not even to one that later lives at the same
/// address: how the response cache and the coalescer tell transports and cookie jars apart (``TransportIdentity``,
/// ``CredentialPartition``).
///
/// Why not `ObjectIdentifier` alone: it is the object's address, and once the object is gone a new one may be
/// allocated where it was; it would then inherit what was filed under the old one (a stored response, a call in
/// flight). Why not hold the object instead (a strong reference in every cache entry): that would keep a transport,
/// with its session and connections, alive for as long as any response it fetched stays stored. So the table keeps
/// a weak reference beside each number: once its object is gone the entry matches no object, a newcomer at the same
/// address gets a fresh number, and numbers only grow (2^64 of them never run out). Entries of dead objects are
/// swept whenever the table has doubled since the last sweep, so it holds at most twice the live objects it has
/// numbered (and at least 64 entries before the first sweep).
package final class ObjectNumbers: Sendable {
    /// A weak reference, only ever compared with `===`, never used to reach the object. `@unchecked Sendable`:
    /// loading a weak reference is safe from any thread, and the entries live under `table`'s lock.
    private struct Entry: @unchecked Sendable {
        weak var object: AnyObject?
        let number: UInt64
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var lastNumber: UInt64 = 0
        /// The entry count at which dead entries are swept next.
        var sweepAt = 64
    }

    private let table = Lock(Table())

    /// The numbers every engine uses.
    package static let shared = ObjectNumbers()

    /// An empty table (tests use their own).
    package init() {}

    /// The number of `object`: the same for as long as it lives, and never any other object's.
    package func number(of object: AnyObject) -> UInt64 {
        let id = ObjectIdentifier(object)
        let candidate = Entry(object: object, number: 0)
        return table.withLock { table in
            // The caller holds `object`: an entry of this address whose object is still `object` is its own; one
            // whose object is gone (nil) belonged to an earlier object at the same address.
            if let entry = table.entries[id], entry.object != nil, entry.object === candidate.object {
                return entry.number
            }
            table.lastNumber += 1
            table.entries[id] = Entry(object: candidate.object, number: table.lastNumber)
            if table.entries.count >= table.sweepAt {
                table.entries = table.entries.filter { $0.value.object != nil }
                table.sweepAt = max(64, table.entries.count * 2)
            }
            return table.lastNumber
        }
    }

    /// The entries kept now, live or not yet swept (for tests).
    package var count: Int { table.withLock { $0.entries.count } }
}

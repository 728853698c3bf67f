import Foundation
import NetKit
import Synchronization

// The store of Docs/Caching.md ("A store of your own"), as written there, public API only: the engine tests run a
// cache over it to show that a user's store works as NetKit's own do.

/// Response cache entries as bytes in storage of your own: here a dictionary, in your app a database or a key–value
/// store.
final class KeyValueCacheStore: ResponseCacheStore {
    private struct Row {
        let id: UUID
        let key: String
        let bytes: Data
        var lastUsed: UInt64
    }

    /// The rows in the order they were inserted, and a counter that orders their uses.
    private let storage = Mutex<(rows: [Row], uses: UInt64)>(([], 0))
    let maximumBytes: Int

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    var currentBytes: Int { storage.withLock { $0.rows.reduce(0) { $0 + $1.bytes.count } } }
    var count: Int { storage.withLock { $0.rows.count } }

    func entries(forKey key: String) -> [ResponseCacheEntry] {
        let found = storage.withLock { storage -> [Data] in
            storage.uses += 1
            var found: [Data] = []
            for index in storage.rows.indices where storage.rows[index].key == key {
                storage.rows[index].lastUsed = storage.uses
                found.append(storage.rows[index].bytes)
            }
            return found
        }
        // Bytes that do not read back (damaged, or written by another format version) are skipped.
        return found.compactMap { try? ResponseCacheEntry(encoded: $0) }
    }

    func insert(_ entry: ResponseCacheEntry, replacing replaced: [UUID]) -> Bool {
        let bytes = entry.encoded()
        return storage.withLock { storage in
            storage.rows.removeAll { replaced.contains($0.id) }
            guard bytes.count <= maximumBytes else { return false }
            storage.uses += 1
            storage.rows.append(Row(id: entry.id, key: entry.key, bytes: bytes, lastUsed: storage.uses))
            // The least recently used go first until the bound holds.
            var total = storage.rows.reduce(0) { $0 + $1.bytes.count }
            while total > maximumBytes,
                let oldest = storage.rows.indices.min(by: {
                    storage.rows[$0].lastUsed < storage.rows[$1].lastUsed
                })
            {
                total -= storage.rows.remove(at: oldest).bytes.count
            }
            return true
        }
    }

    func remove(_ ids: [UUID], forKey key: String) {
        storage.withLock { $0.rows.removeAll { ids.contains($0.id) } }
    }

    func removeAll(forKey key: String) {
        storage.withLock { $0.rows.removeAll { $0.key == key } }
    }

    func removeAll() {
        storage.withLock { $0.rows.removeAll() }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock

/// The default ``ResponseCacheStore``: entries kept as values in memory, for as long as the cache lives, within a
/// byte bound (``ResponseCacheEntry/byteCount``). Nothing is encoded: an entry keeps whose it is exactly (the
/// transport and cookie jar instances, the credential values), as the cache compares them.
package final class MemoryCacheStore: ResponseCacheStore {
    private let state: Lock<CacheStore<ResponseCacheEntry>>
    package let maximumBytes: Int

    /// An empty store of at most `maximumBytes` (a negative bound counts as 0: nothing is stored).
    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
        self.state = Lock(CacheStore(maximumBytes: maximumBytes))
    }

    package var currentBytes: Int { state.withLock { $0.currentBytes } }

    package var count: Int { state.withLock { $0.count } }

    package func entries(forKey key: String) -> [ResponseCacheEntry] {
        state.withLock { $0.items(forKey: key) }
    }

    @discardableResult
    package func insert(_ entry: ResponseCacheEntry, replacing replaced: [UUID]) -> Bool {
        state.withLock {
            $0.insert(entry, id: entry.id, key: entry.key, size: entry.byteCount, replacing: replaced).stored
        }
    }

    package func remove(_ ids: [UUID], forKey key: String) {
        _ = state.withLock { $0.remove(ids) }
    }

    package func removeAll(forKey key: String) {
        _ = state.withLock { $0.removeAll(forKey: key) }
    }

    package func removeAll() {
        _ = state.withLock { $0.removeAll() }
    }

    /// The entries from the most to the least recently used (for tests).
    package var entriesByRecency: [ResponseCacheEntry] {
        state.withLock { $0.itemsByRecency.map(\.item) }
    }
}

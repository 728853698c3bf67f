#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a ``ResponseCache`` keeps its entries: in memory (`ResponseCache(maximumBytes:)`), in a directory
/// (`ResponseCache(directory:maximumBytes:)`), or in storage of your own (`ResponseCache(store:)`).
///
/// A store files, finds, bounds and removes ``ResponseCacheEntry`` values; every HTTP decision (which entry answers
/// which request, freshness, validation, what may be stored) stays in the cache. A store of bytes keeps
/// ``ResponseCacheEntry/encoded()`` and gives back ``ResponseCacheEntry/init(encoded:)``, skipping (and removing) an
/// entry whose bytes it refuses; those bytes hold no credential and no request value in clear, only salted digests.
///
/// The rules every store keeps, the memory and disk stores included:
/// - An entry is filed under its ``ResponseCacheEntry/key``; several may share a key, and
///   ``entries(forKey:)`` gives them in the order they were inserted (the last inserted wins among equals).
/// - The entries together count at most ``maximumBytes``: inserting past it removes the least recently used first
///   (an entry returned by ``entries(forKey:)`` counts as used), and an entry larger than the bound on its own is not
///   inserted.
/// - Calls come from any thread, at the same time: the store guards its own state.
///
/// A store of a key–value database, say, might look like this:
///
/// ```swift
/// final class DatabaseCacheStore: ResponseCacheStore {
///     let maximumBytes = 50 << 20
///     let database: MyDatabase  // your own, Sendable
///
///     var currentBytes: Int { database.totalSize(table: "http_cache") }
///     var count: Int { database.rowCount(table: "http_cache") }
///
///     func entries(forKey key: String) -> [ResponseCacheEntry] {
///         database.rows(table: "http_cache", key: key, touching: true).compactMap {
///             try? ResponseCacheEntry(encoded: $0.bytes)  // a damaged row is skipped
///         }
///     }
///
///     func insert(_ entry: ResponseCacheEntry, replacing replaced: [UUID]) -> Bool {
///         let bytes = entry.encoded()
///         guard bytes.count <= maximumBytes else { return false }
///         database.transaction { db in
///             db.delete(table: "http_cache", ids: replaced)
///             db.insert(table: "http_cache", id: entry.id, key: entry.key, bytes: bytes)
///             db.evictLeastRecentlyUsed(table: "http_cache", toFit: maximumBytes)
///         }
///         return true
///     }
///
///     func remove(_ ids: [UUID], forKey key: String) { database.delete(table: "http_cache", ids: ids) }
///     func removeAll(forKey key: String) { database.delete(table: "http_cache", key: key) }
///     func removeAll() { database.deleteAll(table: "http_cache") }
/// }
///
/// manager.responseCache = ResponseCache(store: DatabaseCacheStore(database: database))
/// ```
public protocol ResponseCacheStore: Sendable {
    /// The most bytes the entries may count together.
    var maximumBytes: Int { get }
    /// The bytes the entries count now.
    var currentBytes: Int { get }
    /// The number of entries.
    var count: Int { get }

    /// The entries filed under `key`, in the order they were inserted; each counts as used.
    func entries(forKey key: String) -> [ResponseCacheEntry]

    /// Files `entry` under its key after removing the entries `replaced` names (entries of the same key it
    /// supersedes), then removes the least recently used entries until the bound holds.
    /// - Returns: `false` when the entry was not kept (larger than the bound, or the storage refused it); the
    ///   replaced entries are removed all the same.
    @discardableResult
    func insert(_ entry: ResponseCacheEntry, replacing replaced: [UUID]) -> Bool

    /// Removes the entries of `key` whose identities `ids` lists.
    func remove(_ ids: [UUID], forKey key: String)

    /// Removes every entry filed under `key` (an unsafe request made them stale, RFC 9111 §4.4).
    func removeAll(forKey key: String)

    /// Removes every entry.
    func removeAll()
}

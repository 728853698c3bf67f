#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Items filed under keys, in least-recently-used order, within a byte bound: the pure state behind both of NetKit's
/// ``ResponseCacheStore``s (the memory store's entries; the disk store's files), which their locks guard.
///
/// Storing past the bound removes the least recently used items first (a lookup counts as a use of every item of
/// its key); an item larger than the bound on its own is not stored. A key keeps at most ``maximumVariants`` items:
/// a lookup reads (on disk: opens) every item of its key, so their number is bounded apart from their bytes. Every
/// change returns the items it removed, so that the owner can act on them (the disk store deletes their files)
/// outside its lock.
package struct CacheStore<Item: Sendable>: Sendable {
    private struct Node: Sendable {
        var key: String
        var item: Item
        var size: Int
        /// The next more recently used node.
        var newer: UUID?
        /// The next less recently used node.
        var older: UUID?
    }

    /// The most bytes the items may count together.
    package let maximumBytes: Int
    /// The most items one key keeps (the variants of one target, for other callers or `Vary` values); inserting
    /// another removes the key's least recently used.
    package static var maximumVariants: Int { 8 }
    /// The bytes the items count.
    package private(set) var currentBytes = 0
    private var nodes: [UUID: Node] = [:]
    /// The items filed under each key, in the order they were inserted.
    private var variants: [String: [UUID]] = [:]
    private var newest: UUID?
    private var oldest: UUID?

    /// An empty store.
    package init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The number of items.
    package var count: Int { nodes.count }

    /// The items from the most to the least recently used, with their keys.
    package var itemsByRecency: [(key: String, item: Item)] {
        var result: [(key: String, item: Item)] = []
        var id = newest
        while let current = id, let node = nodes[current] {
            result.append((node.key, node.item))
            id = node.older
        }
        return result
    }

    /// The items filed under `key`, in the order they were inserted, each counted as used.
    package mutating func items(forKey key: String) -> [Item] {
        guard let ids = variants[key] else { return [] }
        for id in ids { touch(id) }
        return ids.compactMap { nodes[$0]?.item }
    }

    /// Files `item` (identified by `id`, counting `size` bytes) under `key` after removing the items of `replaced`,
    /// then removes the least recently used until the bound holds.
    /// - Returns: whether the item was stored (not when larger than the bound), and every item removed.
    package mutating func insert(
        _ item: Item, id: UUID, key: String, size: Int, replacing replaced: [UUID]
    ) -> (stored: Bool, removed: [Item]) {
        var removed = remove(replaced + [id])
        guard size <= maximumBytes else { return (false, removed) }
        nodes[id] = Node(key: key, item: item, size: size, newer: nil, older: newest)
        if let newest { nodes[newest]?.newer = id }
        newest = id
        if oldest == nil { oldest = id }
        variants[key, default: []].append(id)
        currentBytes += size
        // A key's items are used together, so the first inserted is its least recently used.
        if let ids = variants[key], ids.count > Self.maximumVariants {
            removed += remove(Array(ids.prefix(ids.count - Self.maximumVariants)))
        }
        while currentBytes > maximumBytes, let victim = oldest {
            removed += remove([victim])
        }
        return (true, removed)
    }

    /// Removes the items `ids` names (those it holds).
    package mutating func remove(_ ids: [UUID]) -> [Item] {
        ids.compactMap { removeNode($0) }
    }

    /// Removes every item filed under `key`.
    package mutating func removeAll(forKey key: String) -> [Item] {
        remove(variants[key] ?? [])
    }

    /// Removes everything.
    package mutating func removeAll() -> [Item] {
        let items = nodes.values.map(\.item)
        nodes.removeAll()
        variants.removeAll()
        newest = nil
        oldest = nil
        currentBytes = 0
        return items
    }

    /// Makes `id` the most recently used.
    private mutating func touch(_ id: UUID) {
        guard newest != id, let node = nodes[id] else { return }
        unlink(id, node)
        nodes[id]?.newer = nil
        nodes[id]?.older = newest
        if let newest { nodes[newest]?.newer = id }
        newest = id
        if oldest == nil { oldest = id }
    }

    private mutating func removeNode(_ id: UUID) -> Item? {
        guard let node = nodes[id] else { return nil }
        unlink(id, node)
        nodes[id] = nil
        currentBytes -= node.size
        variants[node.key]?.removeAll { $0 == id }
        if variants[node.key]?.isEmpty == true { variants[node.key] = nil }
        return node.item
    }

    /// Takes `id` out of the recency list, joining its neighbours.
    private mutating func unlink(_ id: UUID, _ node: Node) {
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
    }
}

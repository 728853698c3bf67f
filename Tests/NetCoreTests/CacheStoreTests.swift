import Foundation
import Testing
import NetCore

/// The least-recently-used index both stores keep, as plain values: what each change keeps and what it hands back
/// to be removed (the disk store deletes those files).
@Suite("Cache store: least recently used out first, within a byte bound")
struct CacheStoreTests {
    /// `count` fresh identities, named by their index in the tests' tables.
    static let ids = (0..<6).map { _ in UUID() }

    /// One step and what it should leave: the items by recency (most recent first) and the items it removed.
    enum Step {
        case insert(Int, key: String, size: Int, replacing: [Int] = [], stored: Bool = true)
        case use(key: String)
        case remove([Int])
        case removeKey(String)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let bound: Int
        let steps: [(Step, removed: [Int])]
        let recency: [Int]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "inserts past the bound remove the oldest", bound: 10,
            steps: [
                (.insert(0, key: "a", size: 4), []), (.insert(1, key: "b", size: 4), []),
                (.insert(2, key: "c", size: 4), [0]),
            ], recency: [2, 1]),
        Row(
            name: "a use saves an item from eviction", bound: 10,
            steps: [
                (.insert(0, key: "a", size: 4), []), (.insert(1, key: "b", size: 4), []), (.use(key: "a"), []),
                (.insert(2, key: "c", size: 4), [1]),
            ], recency: [2, 0]),
        Row(
            name: "a use counts every variant of its key", bound: 20,
            steps: [
                (.insert(0, key: "a", size: 4), []), (.insert(1, key: "a", size: 4), []),
                (.insert(2, key: "b", size: 4), []), (.use(key: "a"), []),
            ], recency: [1, 0, 2]),
        Row(
            name: "a replacement removes what it replaces, first", bound: 8,
            steps: [
                (.insert(0, key: "a", size: 4), []), (.insert(1, key: "b", size: 4), []),
                (.insert(2, key: "a", size: 4, replacing: [0]), [0]),
            ], recency: [2, 1]),
        Row(
            name: "an item larger than the bound is refused; what it replaces goes all the same", bound: 8,
            steps: [
                (.insert(0, key: "a", size: 4), []),
                (.insert(1, key: "a", size: 9, replacing: [0], stored: false), [0]),
            ],
            recency: []),
        Row(
            name: "removal by identity and by key", bound: 100,
            steps: [
                (.insert(0, key: "a", size: 1), []), (.insert(1, key: "a", size: 1), []),
                (.insert(2, key: "b", size: 1), []), (.remove([1, 5]), [1]), (.removeKey("a"), [0]),
            ], recency: [2]),
    ]

    @Test("each table row", arguments: rows)
    func table(_ row: Row) {
        var store = CacheStore<Int>(maximumBytes: row.bound)
        var sizes: [Int: Int] = [:]
        for (index, (step, expected)) in row.steps.enumerated() {
            var removed: [Int]
            switch step {
            case .insert(let item, let key, let size, let replacing, let stored):
                sizes[item] = size
                let outcome = store.insert(
                    item, id: Self.ids[item], key: key, size: size, replacing: replacing.map { Self.ids[$0] })
                #expect(outcome.stored == stored, "step \(index)")
                removed = outcome.removed
                for gone in removed { sizes[gone] = nil }
                if !stored { sizes[item] = nil }
            case .use(let key):
                removed = []
                _ = store.items(forKey: key)
            case .remove(let items):
                removed = store.remove(items.map { Self.ids[$0] })
                for gone in removed { sizes[gone] = nil }
            case .removeKey(let key):
                removed = store.removeAll(forKey: key)
                for gone in removed { sizes[gone] = nil }
            }
            #expect(removed.sorted() == expected.sorted(), "step \(index)")
            #expect(store.currentBytes <= row.bound)
        }
        #expect(store.itemsByRecency.map(\.item) == row.recency)
        #expect(store.count == row.recency.count)
        #expect(store.currentBytes == sizes.values.reduce(0, +))
    }

    @Test("a key keeps at most maximumVariants items: another removes the key's least recently used")
    func variantBound() {
        var store = CacheStore<Int>(maximumBytes: 1000)
        let limit = CacheStore<Int>.maximumVariants
        for item in 0..<limit { _ = store.insert(item, id: UUID(), key: "k", size: 1, replacing: []) }
        _ = store.insert(100, id: UUID(), key: "other", size: 1, replacing: [])
        let outcome = store.insert(limit, id: UUID(), key: "k", size: 1, replacing: [])
        #expect(outcome.stored && outcome.removed == [0])
        #expect(store.items(forKey: "k") == Array(1...limit))
        #expect(store.items(forKey: "other") == [100], "other keys keep theirs")
    }

    @Test("items of a key come back in the order they were inserted")
    func insertionOrder() {
        var store = CacheStore<Int>(maximumBytes: 100)
        for item in [3, 1, 2] { _ = store.insert(item, id: UUID(), key: "k", size: 1, replacing: []) }
        #expect(store.items(forKey: "k") == [3, 1, 2])
        #expect(store.removeAll().sorted() == [1, 2, 3] && store.count == 0 && store.currentBytes == 0)
    }
}

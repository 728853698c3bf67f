/// Where a stored response is filed: the method and the target. Which of the responses filed there answers a
/// request is the ``CachedResponse``'s to say (its ``CredentialPartition`` and `Vary`). The partition is not part of
/// the key, so that a method that is not safe invalidates a target for everyone (RFC 9111 §4.4).
package struct CacheKey: Sendable, Hashable {
    /// The method (`GET`).
    package var method: HTTPRequestMethod
    /// The scheme, lowercased.
    package var scheme: String
    /// The host, lowercased, and the port when it is not the scheme's default (`api.test:443` is `api.test`).
    package var authority: String
    /// The path and query as sent.
    package var path: String

    /// The key of `head`'s target.
    package init(_ head: HTTPRequestHead, method: HTTPRequestMethod? = nil) {
        self.method = method ?? head.method
        self.scheme = head.scheme.lowercased()
        if head.port == nil {
            self.authority = head.authority.lowercased()
        } else {
            // The origin's description names the port only when it is not the scheme's default.
            let origin = HTTPOrigin(head)
            self.authority = String(origin.description.dropFirst(origin.scheme.utf8.count + 3))
        }
        self.path = head.path
    }
}

/// The responses of a ``ResponseCache``, in least-recently-used order, within a byte bound: the pure state the
/// cache's lock guards.
///
/// Storing past the bound removes the least recently used responses first (a lookup that finds a response counts
/// as a use); a response larger than the bound on its own is not stored.
struct CacheStore: Sendable {
    private struct Node: Sendable {
        var key: CacheKey
        var response: CachedResponse
        /// The next more recently used node.
        var newer: UInt64?
        /// The next less recently used node.
        var older: UInt64?
    }

    /// The most bytes the stored responses may hold together.
    package let maximumBytes: Int
    /// The bytes the stored responses hold (see ``CachedResponse/byteCount``).
    package private(set) var currentBytes = 0
    private var nodes: [UInt64: Node] = [:]
    /// The nodes filed under each key, the variants of one target.
    private var variants: [CacheKey: [UInt64]] = [:]
    private var newest: UInt64?
    private var oldest: UInt64?
    private var nextID: UInt64 = 0

    /// An empty store.
    package init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The number of stored responses.
    package var count: Int { nodes.count }

    /// The stored responses from the most to the least recently used (for tests).
    package var responsesByRecency: [(key: CacheKey, response: CachedResponse)] {
        var result: [(key: CacheKey, response: CachedResponse)] = []
        var id = newest
        while let current = id, let node = nodes[current] {
            result.append((node.key, node.response))
            id = node.older
        }
        return result
    }

    /// The response filed under `key` that may answer `request` of `partition`, counted as used; the most recently
    /// stored when several may.
    package mutating func response(
        for key: CacheKey, matching request: HTTPRequestHead, in partition: CredentialPartition
    ) -> CachedResponse? {
        guard let ids = variants[key] else { return nil }
        // Variants are appended as they are stored: the last that matches is the newest.
        guard let id = ids.last(where: { nodes[$0]?.response.matches(request, in: partition) == true }) else {
            return nil
        }
        touch(id)
        return nodes[id]?.response
    }

    /// Files `response` under `key` in place of the responses there that answer the same `request` (of the same
    /// partition), then removes the least recently used until the bound holds again.
    /// - Returns: `false` when the response alone is larger than the bound: it is not stored (the responses it
    ///   would have replaced are removed all the same, being superseded).
    @discardableResult
    package mutating func store(_ response: CachedResponse, for key: CacheKey, request: HTTPRequestHead) -> Bool {
        removeResponses(for: key, matching: request, in: response.partition)
        guard response.byteCount <= maximumBytes else { return false }
        nextID += 1
        let id = nextID
        nodes[id] = Node(key: key, response: response, newer: nil, older: newest)
        if let newest { nodes[newest]?.newer = id }
        newest = id
        if oldest == nil { oldest = id }
        variants[key, default: []].append(id)
        currentBytes += response.byteCount
        while currentBytes > maximumBytes, let victim = oldest {
            remove(victim)
        }
        return true
    }

    /// Removes the responses filed under `key` that may answer `request` of `partition`.
    mutating func removeResponses(
        for key: CacheKey, matching request: HTTPRequestHead, in partition: CredentialPartition
    ) {
        for id in variants[key] ?? [] where nodes[id]?.response.matches(request, in: partition) == true {
            remove(id)
        }
    }

    /// Removes every response filed under `key`, whatever request of whatever partition it answered.
    mutating func removeResponses(for key: CacheKey) {
        for id in variants[key] ?? [] { remove(id) }
    }

    /// Removes everything.
    package mutating func removeAll() {
        nodes.removeAll()
        variants.removeAll()
        newest = nil
        oldest = nil
        currentBytes = 0
    }

    /// Makes `id` the most recently used.
    private mutating func touch(_ id: UInt64) {
        guard newest != id, let node = nodes[id] else { return }
        unlink(id, node)
        nodes[id]?.newer = nil
        nodes[id]?.older = newest
        if let newest { nodes[newest]?.newer = id }
        newest = id
        if oldest == nil { oldest = id }
    }

    private mutating func remove(_ id: UInt64) {
        guard let node = nodes[id] else { return }
        unlink(id, node)
        nodes[id] = nil
        currentBytes -= node.response.byteCount
        variants[node.key]?.removeAll { $0 == id }
        if variants[node.key]?.isEmpty == true { variants[node.key] = nil }
    }

    /// Takes `id` out of the recency list, joining its neighbours.
    private mutating func unlink(_ id: UInt64, _ node: Node) {
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
    }
}

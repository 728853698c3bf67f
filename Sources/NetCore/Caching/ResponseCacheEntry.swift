#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored response as a ``ResponseCacheStore`` holds it: an identity, the key it is filed under, its size, and
/// its contents, which a store keeps either as the value itself (in memory) or as the bytes of ``encoded()`` (on a
/// disk, in a database), read back with ``init(encoded:)``.
///
/// The contents are the cache's business: a store files, finds, bounds and removes entries, and never looks inside.
/// What ``encoded()`` writes holds no credential and no request value in clear (see ``ResponseCacheStore``).
public struct ResponseCacheEntry: Sendable, Identifiable {
    /// The entry's identity: unique to it, also across launches.
    public let id: UUID
    /// What the entry is filed under: 64 lowercase hexadecimal digits, the SHA-256 digest of the request's method
    /// and target (never the URL itself, whose query may carry a secret). Several entries may share a key: the
    /// variants one target has for different callers or `Vary` values.
    public let key: String
    /// The response and what decides which requests it answers.
    package let response: CachedResponse

    /// An entry for `response`, filed under `key`.
    package init(id: UUID = UUID(), key: String, response: CachedResponse) {
        self.id = id
        self.key = key
        self.response = response
    }

    /// The bytes the entry counts for in a memory store's bound: its body, its header fields, and what it keeps of
    /// its request. (A store of bytes may count ``encoded()``'s size instead.)
    public var byteCount: Int { response.byteCount }

    /// When the response was received (for a store that wants to expire old entries by its own rules).
    public var receivedAt: Date { response.freshness.responseTime }
}

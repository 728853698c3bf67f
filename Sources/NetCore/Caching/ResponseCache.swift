#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock

/// An HTTP cache (RFC 9111), private to its client, kept in memory or on disk, opt-in:
/// `manager.responseCache = ResponseCache(maximumBytes: 8 << 20)`.
///
/// The engine asks it about every `send` of a `GET` (not `stream`, and not a request that is already conditional
/// or asks for a range), and tells it about every request that may change what it stores, whichever way it is sent.
/// The same on every transport, Linux included, since it sits in the engine, not in the transport:
///
/// ```swift
/// let manager = NetworkManager(baseURL: URL(string: "https://api.example.com")!)
/// manager.responseCache = ResponseCache(maximumBytes: 8 << 20)
/// let first = try await manager.send(GetUser(id: 1), accessToken: nil)   // 200 with ETag: stored
/// let again = try await manager.send(GetUser(id: 1), accessToken: nil)   // If-None-Match → 304: the stored body
/// ```
///
/// - A fresh stored response (`Cache-Control: max-age`, `Expires`, or heuristic freshness) answers without the
///   network. A stale one, or one marked `no-cache`, is validated with `If-None-Match` (its `ETag`) and
///   `If-Modified-Since` (its `Last-Modified`); a 304 then reaches the caller as the stored response with the 304's
///   updated header fields, and the entry starts a new freshness. Without `max-age` or `Expires`, a response of a
///   heuristically cacheable status (200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501) or marked `public` is
///   fresh for a tenth of the time since its `Last-Modified`, at most a week (RFC 9111 §4.2.2).
/// - Honoured: `no-store` and `no-cache` (request and response), `max-age` (both), `must-revalidate`,
///   `max-stale`, `min-fresh` and `only-if-cached` (request: a 504 when nothing stored may answer), `Expires` and
///   `Date` (strict HTTP-dates: anything else in `Expires` means already expired), `Age`, `public`,
///   `must-understand`, `immutable` (a reload does not validate a fresh immutable response),
///   `stale-while-revalidate` (a stale response within its window answers at once while one validation runs in the
///   background), `stale-if-error` (response or request: a stale response within its window answers in place of a
///   500, 502, 503 or 504 or of a failure to reach the server), and `Pragma: no-cache` on a request without
///   `Cache-Control`. `private` responses are stored: this cache belongs to one client; `s-maxage` is for shared
///   caches and is ignored. Docs/Caching.md lists every directive and status.
/// - `Vary`: a stored response answers only requests whose fields it names carry the same values (repeated fields
///   joined, spaces around commas ignored; `Accept-Language` and `Accept-Encoding` members in any order and case);
///   `Vary: *` is never stored. One URL keeps at most 8 variants (callers, `Vary` values); a ninth replaces the least
///   recently used.
/// - A response answers only requests that are as much the same caller's as its own was: the same value of every
///   header field that carries a credential (`Authorization`, `Cookie`, an API key, what plugins and
///   ``RequestExecutor/Configuration/credentialFields`` declare: ``CredentialFields``) or none on both, sent through the same
///   transport (one that is a class or an actor is itself; a struct transport of your own is told apart by its type
///   alone: make it a class if two of them may answer differently) with the same ``CookieJar`` (or none). Credential
///   query items are part of the URL the cache keys on. Tenants of one engine, engines over two transports and two
///   cookie sessions sharing one cache never get each other's responses.
/// - Stored: complete final responses to `GET` (not 206 or 304) with explicit freshness, `public` or `private`, or a
///   heuristically cacheable status, that can be validated or are fresh for a while, without their `Set-Cookie`
///   fields (the cookie jar had them when they arrived).
/// - A successful (2xx or 3xx) `POST`, `PUT`, `PATCH`, `DELETE` or any other method that is not safe (one NetKit does
///   not know, such as `PROPFIND`, included) removes what
///   is stored for its URL, and for the URLs its `Location` and `Content-Location` name on the same origin, for
///   every caller (RFC 9111 §4.4): sent with `send`, `stream` or NetOpenAPI's transport alike.
/// - Where: in memory by default, bounded at ``maximumBytes`` of bodies and header fields (storing past it removes
///   the least recently used responses first; a response larger than the bound is not stored); in a directory with
///   ``init(directory:maximumBytes:logger:)``, where it survives the process; or in a ``ResponseCacheStore`` of your
///   own with ``init(store:)``.
///
/// In memory, credential values and bodies are kept as they are, compared as they are, for as long as the cache
/// lives; ``removeAll()`` forgets them (at sign-out, say). On disk, no credential is written: see
/// ``init(directory:maximumBytes:logger:)``.
public final class ResponseCache: Sendable {
    /// Where the entries are kept.
    package let store: any ResponseCacheStore
    /// The stored responses being validated in the background now (`stale-while-revalidate`): one at a time each.
    private let revalidating = Lock(Set<CacheKey>())
    /// The wall-clock time: `Date` and `Expires` are wall-clock dates (a test passes a clock it moves itself).
    private let clock: @Sendable () -> Date

    /// Creates an empty cache in memory holding at most `maximumBytes` (a negative bound counts as 0: nothing is
    /// stored).
    public convenience init(maximumBytes: Int) {
        self.init(maximumBytes: maximumBytes, now: { Date() })
    }

    /// Opens the cache kept in `directory` (made if missing, readable by this user only), holding at most
    /// `maximumBytes` of entry files: what earlier launches stored answers again.
    ///
    /// ```swift
    /// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    /// manager.responseCache = try ResponseCache(
    ///     directory: caches.appending(path: "api-responses"), maximumBytes: 50 << 20)
    /// ```
    ///
    /// - Each response is one file, written whole under a temporary name and then renamed: a process killed while
    ///   writing leaves the entries that were whole, and the next opening removes the rest. A file found damaged
    ///   (truncated, altered) is skipped and removed with a line to `logger` at `error` level, never used. The
    ///   default logger writes as NetKit's others do (subsystem `NetKit`, category `cache`, at the level
    ///   `NETKIT_LOG_LEVEL` names).
    /// - Bounded: storing past `maximumBytes` of files removes the least recently used first (across launches: a
    ///   use touches its file's modification time).
    /// - No credential is written: whose a response is (the credential fields' values, the transport's type,
    ///   whether a cookie jar was used) and the request values its `Vary` names are kept as SHA-256 digests salted
    ///   per entry, and files are named by a digest of the method and URL. Bodies and response header fields are
    ///   written as they came. Across launches a response answers the same credentials sent through a transport of
    ///   the same type: the instances of a process are gone after it.
    /// - One process at a time: opening a directory another process holds throws
    ///   ``ResponseCacheError/directoryInUse(path:)``, after asking for its lock again for up to a second (a process
    ///   this one starts holds a copy of the lock for a moment, between its fork and its exec). Within a process, caches opened on one directory share its
    ///   files, bound and order (the bound of the first opened); the directory is let go when the last of them goes.
    ///
    /// - Throws: ``ResponseCacheError/directoryUnusable(path:reason:)`` when the directory cannot be made or used,
    ///   ``ResponseCacheError/directoryInUse(path:)`` when another process holds it.
    public convenience init(
        directory: URL, maximumBytes: Int, logger: NetworkLogger = NetworkLogger(subsystem: "NetKit", category: "cache")
    ) throws(ResponseCacheError) {
        self.init(
            store: try DiskCacheStore.open(directory: directory, maximumBytes: maximumBytes, logger: logger),
            now: { Date() })
    }

    /// Creates a cache that keeps its entries in `store`.
    public convenience init(store: any ResponseCacheStore) {
        self.init(store: store, now: { Date() })
    }

    /// Creates an empty cache in memory that reads the time from `now`.
    package convenience init(maximumBytes: Int, now: @escaping @Sendable () -> Date) {
        self.init(store: MemoryCacheStore(maximumBytes: maximumBytes), now: now)
    }

    /// Creates a cache over `store` that reads the time from `now`.
    package init(store: any ResponseCacheStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.clock = now
    }

    /// The most bytes the store keeps; the least recently used entries go first.
    public var maximumBytes: Int { store.maximumBytes }

    /// The bytes the stored responses hold now: bodies, header fields, and the request values kept to match them
    /// (on disk: the entry files' sizes).
    public var currentBytes: Int { store.currentBytes }

    /// The number of stored responses.
    public var count: Int { store.count }

    /// Forgets every stored response.
    public func removeAll() {
        store.removeAll()
    }

    // MARK: For the engine

    /// The current time, as the cache reads it.
    package func now() -> Date { clock() }

    /// The stored response that may answer `request` of `partition`, counted as used; the most recently stored
    /// when several may.
    package func response(for request: HTTPRequestHead, in partition: CredentialPartition) -> CachedResponse? {
        store.entries(forKey: CacheKey(request).digest).last { $0.response.matches(request, in: partition) }?.response
    }

    /// Stores `response` for `request` (of the response's partition), in place of what answered the same request
    /// before.
    /// - Returns: `false` when the response was not kept (larger than the bound, or owned by digests: a response
    ///   read back from bytes is stored again only once ``CachedResponse/owned(by:for:)`` names its owner): what it
    ///   would have replaced is removed all the same, being superseded.
    @discardableResult
    package func store(_ response: CachedResponse, for request: HTTPRequestHead) -> Bool {
        guard case .exact(let partition, _) = response.owner else { return false }
        let key = CacheKey(request).digest
        let replaced = store.entries(forKey: key).filter { $0.response.matches(request, in: partition) }.map(\.id)
        return store.insert(ResponseCacheEntry(key: key, response: response), replacing: replaced)
    }

    /// Removes the stored responses that would answer `request` of `partition`.
    package func remove(for request: HTTPRequestHead, in partition: CredentialPartition) {
        let key = CacheKey(request).digest
        let matching = store.entries(forKey: key).filter { $0.response.matches(request, in: partition) }
        if !matching.isEmpty { store.remove(matching.map(\.id), forKey: key) }
    }

    /// Removes every stored `GET` response of `request`'s target, whoever asked for it (every partition).
    package func invalidate(_ request: HTTPRequestHead) {
        store.removeAll(forKey: CacheKey(request, method: .get).digest)
    }

    /// Marks `key`'s stored response as being validated in the background; `false` when it already is.
    package func beginRevalidation(_ key: CacheKey) -> Bool {
        revalidating.withLock { $0.insert(key).inserted }
    }

    /// Ends the background validation ``beginRevalidation(_:)`` began.
    package func endRevalidation(_ key: CacheKey) {
        revalidating.withLock { _ = $0.remove(key) }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock

/// An HTTP cache (RFC 9111) kept in memory, opt-in: `manager.responseCache = ResponseCache(maximumBytes: 8 << 20)`.
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
///   `Vary: *` is never stored.
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
/// - Bounded: at most ``maximumBytes`` of bodies and header fields; storing past it removes the least recently
///   used responses first, and a response larger than the bound is not stored.
///
/// Credential values and bodies stay in memory only, compared as they are, for as long as the cache lives;
/// ``removeAll()`` forgets them (at sign-out, say).
public final class ResponseCache: Sendable {
    /// The most bytes of stored bodies and header fields kept; the least recently used entries go first.
    public let maximumBytes: Int
    private let entries: Lock<CacheStore>
    /// The stored responses being validated in the background now (`stale-while-revalidate`): one at a time each.
    private let revalidating = Lock(Set<CacheKey>())
    /// The wall-clock time: `Date` and `Expires` are wall-clock dates (a test passes a clock it moves itself).
    private let clock: @Sendable () -> Date

    /// Creates an empty cache holding at most `maximumBytes` (a negative bound counts as 0: nothing is stored).
    public convenience init(maximumBytes: Int) {
        self.init(maximumBytes: maximumBytes, now: { Date() })
    }

    /// Creates an empty cache that reads the time from `now`.
    package init(maximumBytes: Int, now: @escaping @Sendable () -> Date) {
        self.maximumBytes = max(0, maximumBytes)
        self.entries = Lock(CacheStore(maximumBytes: maximumBytes))
        self.clock = now
    }

    /// The bytes the stored responses hold now: bodies, header fields, and the request values kept to match them.
    public var currentBytes: Int { entries.withLock { $0.currentBytes } }

    /// The number of stored responses.
    public var count: Int { entries.withLock { $0.count } }

    /// Forgets every stored response.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    // MARK: For the engine

    /// The current time, as the cache reads it.
    package func now() -> Date { clock() }

    /// The stored response that may answer `request` of `partition`, counted as used.
    package func response(for request: HTTPRequestHead, in partition: CredentialPartition) -> CachedResponse? {
        entries.withLock { $0.response(for: CacheKey(request), matching: request, in: partition) }
    }

    /// Stores `response` for `request` (of the response's partition), in place of what answered the same request
    /// before.
    @discardableResult
    package func store(_ response: CachedResponse, for request: HTTPRequestHead) -> Bool {
        entries.withLock { $0.store(response, for: CacheKey(request), request: request) }
    }

    /// Removes the stored responses that would answer `request` of `partition`.
    package func remove(for request: HTTPRequestHead, in partition: CredentialPartition) {
        entries.withLock { $0.removeResponses(for: CacheKey(request), matching: request, in: partition) }
    }

    /// Removes every stored `GET` response of `request`'s target, whoever asked for it (every partition).
    package func invalidate(_ request: HTTPRequestHead) {
        entries.withLock { $0.removeResponses(for: CacheKey(request, method: .get)) }
    }

    /// Marks `key`'s stored response as being validated in the background; `false` when it already is.
    package func beginRevalidation(_ key: CacheKey) -> Bool {
        revalidating.withLock { $0.insert(key).inserted }
    }

    /// Ends the background validation ``beginRevalidation(_:)`` began.
    package func endRevalidation(_ key: CacheKey) {
        revalidating.withLock { _ = $0.remove(key) }
    }

    /// The stored responses from the most to the least recently used (for tests).
    package var responsesByRecency: [(key: CacheKey, response: CachedResponse)] {
        entries.withLock { $0.responsesByRecency }
    }
}

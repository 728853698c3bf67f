import Foundation
import NetKitLock
import Testing
import NetCore

/// The cache's store: the byte bound and least-recently-used order, `Vary`, `Authorization`, and the update of a
/// stored response by a 304 (RFC 9111 §3.2, §4.1, §4.3.4), without I/O and at given times.
@Suite("Response cache: storage, bound, Vary, Authorization and 304 updates")
struct ResponseCacheTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A settable clock.
    final class Now: Sendable {
        let value = Lock(ResponseCacheTests.t0)
        var date: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    static func request(_ path: String = "/items", _ pairs: [(String, String)] = []) throws -> HTTPRequestHead {
        try HTTPRequestHead(
            method: .get, url: URL(string: "https://api.test" + path)!,
            headerFields: HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) }))
    }

    static func entry(
        _ body: String = "body",
        _ pairs: [(String, String)] = [("ETag", #""v1""#)],
        for request: HTTPRequestHead,
        at time: Date = t0
    ) throws -> CachedResponse {
        let head = HTTPResponseHead(
            statusCode: 200, headerFields: try HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) }))
        return try #require(
            CachedResponse(
                head: head, body: Data(body.utf8), request: request, partition: .of(request), requestTime: time,
                responseTime: time))
    }

    @Test("the bound holds: the least recently used go first, and a lookup counts as a use")
    func leastRecentlyUsedFirst() throws {
        let a = try Self.request("/a")
        let b = try Self.request("/b")
        let c = try Self.request("/c")
        let size = try Self.entry(String(repeating: "x", count: 100), for: a).byteCount
        let cache = ResponseCache(maximumBytes: size * 2, now: { Self.t0 })
        cache.store(try Self.entry(String(repeating: "x", count: 100), for: a), for: a)
        cache.store(try Self.entry(String(repeating: "x", count: 100), for: b), for: b)
        #expect(cache.count == 2 && cache.currentBytes == size * 2)
        #expect(cache.response(for: a) != nil)  // a is now the most recently used
        cache.store(try Self.entry(String(repeating: "x", count: 100), for: c), for: c)
        #expect(cache.count == 2)
        #expect(cache.response(for: b) == nil, "b was the least recently used")
        #expect(cache.response(for: a) != nil && cache.response(for: c) != nil)
        #expect(cache.currentBytes <= cache.maximumBytes)
        let order = (cache.store as? MemoryCacheStore)?.entriesByRecency.map(\.key)
        #expect(order == [CacheKey(c).digest, CacheKey(a).digest])
    }

    @Test("a response larger than the bound is not stored, and what it would replace goes")
    func tooLarge() throws {
        let request = try Self.request()
        let small = try Self.entry("small", for: request)
        let cache = ResponseCache(maximumBytes: small.byteCount + 10, now: { Self.t0 })
        #expect(cache.store(small, for: request))
        #expect(!cache.store(try Self.entry(String(repeating: "x", count: 100), for: request), for: request))
        #expect(cache.count == 0 && cache.currentBytes == 0)
        #expect(ResponseCache(maximumBytes: -1).maximumBytes == 0)
    }

    @Test("byte count covers the body, the header fields and the kept request values")
    func byteCount() throws {
        let request = try Self.request("/items", [("Accept-Language", "en")])
        let entry = try Self.entry("12345", [("ETag", #""v1""#), ("Vary", "Accept-Language")], for: request)
        // body 5 + "ETag" 4 + "\"v1\"" 4 + 4 + "Vary" 4 + "Accept-Language" 15 + 4 + "accept-language" 15 + "en" 2
        #expect(entry.byteCount == 5 + 12 + 23 + 17)
    }

    @Test("storing again for the same request replaces the old response")
    func replaces() throws {
        let request = try Self.request()
        let cache = ResponseCache(maximumBytes: 10_000, now: { Self.t0 })
        cache.store(try Self.entry("one", for: request), for: request)
        cache.store(try Self.entry("two", for: request), for: request)
        #expect(cache.count == 1)
        #expect(cache.response(for: request)?.body == Data("two".utf8))
    }

    @Test("Vary: each variant answers only requests with the same values of the fields it names")
    func vary() throws {
        let cache = ResponseCache(maximumBytes: 10_000, now: { Self.t0 })
        let english = try Self.request("/items", [("Accept-Language", "en"), ("Accept", "a,  b")])
        let french = try Self.request("/items", [("Accept-Language", "fr")])
        let pairs = [("ETag", #""v1""#), ("Vary", "accept-language"), ("Vary", "Accept")]
        cache.store(try Self.entry("en", pairs, for: english), for: english)
        cache.store(try Self.entry("fr", pairs, for: french), for: french)
        #expect(cache.count == 2)
        #expect(
            cache.response(for: try Self.request("/items", [("Accept-Language", "en"), ("Accept", "a, b")]))?.body
                == Data("en".utf8),
            "spaces after commas do not count")
        #expect(cache.response(for: french)?.body == Data("fr".utf8))
        #expect(cache.response(for: try Self.request("/items", [("Accept-Language", "de")])) == nil)
        #expect(
            cache.response(for: try Self.request("/items", [("Accept-Language", "fr"), ("Accept", "a")])) == nil,
            "a field the stored request lacked must be absent too")
        #expect(cache.response(for: try Self.request("/items")) == nil)
    }

    @Test("RFC 9111 §4.1: Accept-Language and Accept-Encoding match whatever their members' order, case and spacing")
    func varyNormalisesNegotiation() throws {
        let cache = ResponseCache(maximumBytes: 10_000, now: { Self.t0 })
        let stored = try Self.request("/items", [("Accept-Language", "en, de"), ("Accept-Encoding", "gzip, br")])
        let pairs = [("ETag", #""v1""#), ("Vary", "Accept-Language, Accept-Encoding")]
        cache.store(try Self.entry("en", pairs, for: stored), for: stored)
        let reordered = try Self.request("/items", [("Accept-Language", " eN ,   De"), ("Accept-Encoding", "BR,gzip")])
        #expect(cache.response(for: reordered) != nil)
        let other = try Self.request("/items", [("Accept-Language", "en"), ("Accept-Encoding", "gzip, br")])
        #expect(cache.response(for: other) == nil, "another set of languages")
        let ordered = try Self.request("/items", [("X-List", "1, 2")])
        cache.store(try Self.entry("x", [("ETag", #""v1""#), ("Vary", "X-List")], for: ordered), for: ordered)
        #expect(cache.response(for: try Self.request("/items", [("X-List", "2, 1")])) == nil, "other fields keep order")
        #expect(cache.response(for: try Self.request("/items", [("X-List", "1"), ("X-List", "2")])) != nil)
    }

    @Test("Vary: * is never stored")
    func varyStar() throws {
        let request = try Self.request()
        let head = HTTPResponseHead(
            statusCode: 200,
            headerFields: try HTTPHeaderFields([(name: "Vary", value: "*"), (name: "ETag", value: "\"a\"")]))
        #expect(
            CachedResponse(
                head: head, body: Data(), request: request, partition: .of(request), requestTime: Self.t0,
                responseTime: Self.t0) == nil)
    }

    @Test("a response is never shared between different Authorization values, nor with a request without one")
    func authorization() throws {
        let cache = ResponseCache(maximumBytes: 10_000, now: { Self.t0 })
        let ann = try Self.request("/me", [("Authorization", "Bearer ann")])
        let bob = try Self.request("/me", [("Authorization", "Bearer bob")])
        cache.store(try Self.entry("ann", for: ann), for: ann)
        #expect(cache.response(for: bob) == nil)
        #expect(cache.response(for: try Self.request("/me")) == nil)
        #expect(cache.response(for: ann)?.body == Data("ann".utf8))
        cache.store(try Self.entry("bob", for: bob), for: bob)
        #expect(cache.count == 2)
        #expect(cache.response(for: bob)?.body == Data("bob".utf8))
        #expect(cache.response(for: ann)?.body == Data("ann".utf8))
    }

    @Test(
        "a response answers its own partition only: another API key, transport or jar misses; invalidation is everyone's"
    )
    func partitions() throws {
        let cache = ResponseCache(maximumBytes: 10_000, now: { Self.t0 })
        let tenantA = try Self.request("/me", [("X-API-Key", "a")])
        let tenantB = try Self.request("/me", [("X-API-Key", "b")])
        let otherTransport = TransportIdentity(IdentityOnlyTransport())
        let entry = try #require(
            CachedResponse(
                head: HTTPResponseHead(
                    statusCode: 200, headerFields: try HTTPHeaderFields([(name: "ETag", value: "\"a\"")])),
                body: Data("a".utf8), request: tenantA, partition: .of(tenantA, jar: 7), requestTime: Self.t0,
                responseTime: Self.t0))
        #expect(entry.byteCount == 1 + 4 + 3 + 4 + "x-api-key".utf8.count + 1, "the credential kept is counted")
        cache.store(entry, for: tenantA)
        #expect(cache.response(for: tenantA, in: .of(tenantA, jar: 7))?.body == Data("a".utf8))
        #expect(cache.response(for: tenantB, in: .of(tenantB, jar: 7)) == nil)
        #expect(cache.response(for: tenantA, in: .of(tenantA, jar: 8)) == nil)
        #expect(cache.response(for: tenantA, in: .of(tenantA)) == nil)
        #expect(cache.response(for: tenantA, in: .of(tenantA, transport: otherTransport, jar: 7)) == nil)
        cache.remove(for: tenantA, in: .of(tenantB, jar: 7))
        #expect(cache.count == 1, "removal for another partition leaves it")
        var put = tenantB
        put.method = .put
        cache.invalidate(put)
        #expect(cache.count == 0, "a PUT by anyone invalidates it")
    }

    @Test("invalidating a target removes every variant; removeAll forgets everything")
    func invalidateAndRemoveAll() throws {
        let cache = ResponseCache(maximumBytes: 10_000, now: { Self.t0 })
        let ann = try Self.request("/me", [("Authorization", "Bearer ann")])
        let anonymous = try Self.request("/me")
        let other = try Self.request("/other")
        cache.store(try Self.entry(for: ann), for: ann)
        cache.store(try Self.entry(for: anonymous), for: anonymous)
        cache.store(try Self.entry(for: other), for: other)
        var post = anonymous
        post.method = .post
        cache.invalidate(post)
        #expect(cache.count == 1 && cache.response(for: other) != nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.currentBytes == 0)
    }

    @Test("stored heads keep no Set-Cookie or hop-by-hop fields")
    func storedFields() throws {
        let request = try Self.request()
        let entry = try Self.entry(
            "b",
            [
                ("ETag", #""v1""#), ("Set-Cookie", "a=1"), ("Connection", "keep-alive, X-Hop"),
                ("X-Hop", "1"), ("Keep-Alive", "timeout=5"), ("X-Kept", "yes"),
            ], for: request)
        #expect(entry.head.headerFields.map(\.name) == ["ETag", "X-Kept"])
    }

    @Test("a 304 updates the stored head: its fields replace the stored ones, Content-Length stays, freshness restarts")
    func notModifiedMerge() throws {
        let request = try Self.request()
        let entry = try Self.entry(
            "stored body",
            [
                ("ETag", #""v1""#), ("Cache-Control", "max-age=10"), ("Content-Length", "11"),
                ("Content-Type", "text/plain"),
                ("Age", "5"), ("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("X-Old", "1"),
            ], for: request)
        let notModified = HTTPResponseHead(
            statusCode: 304,
            headerFields: try HTTPHeaderFields([
                (name: "ETag", value: #""v1""#), (name: "Cache-Control", value: "max-age=60"),
                (name: "Content-Length", value: "0"),
                (name: "X-New", value: "2"), (name: "Set-Cookie", value: "s=1"), (name: "Set-Cookie", value: "t=2"),
            ]))
        let later = Self.t0.addingTimeInterval(100)
        let (updated, delivered) = entry.updated(with: notModified, requestTime: later, responseTime: later)
        let fields = updated.head.headerFields
        #expect(updated.head.statusCode == 200)
        #expect(updated.body == Data("stored body".utf8))
        #expect(fields.value(for: "Cache-Control") == "max-age=60")
        #expect(fields.value(for: "Content-Length") == "11")
        #expect(fields.value(for: "X-Old") == "1" && fields.value(for: "X-New") == "2")
        #expect(fields.value(for: "Content-Type") == "text/plain")
        #expect(!fields.contains("Age") && !fields.contains("Date"), "both described the first response")
        #expect(!fields.contains("Set-Cookie"))
        #expect(delivered.statusCode == 200)
        #expect(
            delivered.headerFields.values(for: "Set-Cookie") == ["s=1", "t=2"], "the caller sees the 304's cookies")
        #expect(delivered.headerFields.value(for: "Cache-Control") == "max-age=60")
        #expect(updated.freshness.isFresh(at: later.addingTimeInterval(59)))
        #expect(!entry.freshness.isFresh(at: later))
    }

    @Test("a served response carries its age")
    func ageField() throws {
        let now = Now()
        let request = try Self.request()
        let cache = ResponseCache(maximumBytes: 10_000, now: { now.date })
        cache.store(try Self.entry("b", [("Cache-Control", "max-age=60"), ("Age", "3")], for: request), for: request)
        now.advance(7.9)
        let stored = try #require(cache.response(for: request))
        #expect(stored.head(at: cache.now()).headerFields.value(for: "Age") == "10")
    }
}

import Foundation
import Testing
import NetCore

/// The cache's rules one by one, each test named after the section of RFC 9111 (or RFC 5861, RFC 8246) it checks,
/// pure and at given times; the cases follow the http-tests cache-tests suite where it has them.
@Suite("Response cache: the rules of RFC 9111, section by section")
struct CacheRFC9111Tests {
    typealias Fixture = CacheFreshnessTests
    static let t0 = Fixture.t0
    static let t0Text = Fixture.t0Text

    static func freshness(_ status: Int = 200, _ pairs: [(String, String)]) throws -> CacheFreshness {
        CacheFreshness(head: try Fixture.head(status, pairs), requestTime: t0, responseTime: t0)
    }

    static func stores(_ status: Int, _ pairs: [(String, String)]) throws -> Bool {
        try Fixture.refusal(status, pairs) == nil
    }

    static func use(_ pairs: [(String, String)], request: String = "", after seconds: Double) throws
        -> CachePolicy.Use
    {
        CachePolicy.use(
            try Fixture.stored(pairs), request: CacheControl(request), at: t0.addingTimeInterval(seconds))
    }

    // MARK: §5.3 Expires

    @Test(
        "§5.3: an Expires that is a strict HTTP-date in the future makes the response fresh",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 GMT", "Thursday, 18-Aug-50 02:01:18 GMT", "Thu Aug 18 02:01:18 2050",
            "THU, 18 AUG 2050 02:01:18 gmt",
        ])
    func expiresValid(_ expires: String) throws {
        let freshness = try Self.freshness(200, [("Date", Self.t0Text), ("Expires", expires)])
        #expect(freshness.isExplicit && freshness.isFresh(at: Self.t0))
    }

    @Test(
        "§5.3: an invalid Expires means already expired",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST", "Thu, 18 Aug 50 02:01:18 GMT",
            "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "0", "-1",
        ])
    func expiresInvalid(_ expires: String) throws {
        let freshness = try Self.freshness(200, [("Date", Self.t0Text), ("Expires", expires)])
        #expect(freshness.isExplicit && freshness.lifetime == 0)
    }

    @Test("§5.3: two Expires lines are not a date: already expired")
    func expiresTwice() throws {
        let freshness = try Self.freshness(
            200,
            [
                ("Date", Self.t0Text), ("Expires", "Thu, 18 Aug 2050 02:01:18 GMT"),
                ("Expires", "Thu, 18 Aug 2050 02:01:19 GMT"),
            ])
        #expect(freshness.lifetime == 0)
    }

    @Test("§5.6.7 of RFC 9110: a Date that is not an HTTP-date counts as the time of receipt")
    func invalidDate() throws {
        let freshness = try Self.freshness(
            200, [("Date", "Tue, 14 Nov 2023 22:13:20 UTC"), ("Cache-Control", "max-age=60")])
        #expect(freshness.initialAge == 0)
    }

    // MARK: §5.1 Age

    @Test(
        "§5.1: Age is the first member of the first line; a value that is not delta-seconds is ignored",
        arguments: [
            (["abc"], 0.0), (["-7200"], 0), (["7200.0"], 0), (["7200, 0"], 7200), (["0, 7200"], 0),
            (["7200", "0"], 7200), (["0", "7200"], 0), (["0, 0"], 0), (["3600", "3600"], 3600),
            (["2147483649"], 2_147_483_648),
        ] as [([String], Double)])
    func ageParsing(_ lines: [String], _ expected: Double) throws {
        let freshness = try Self.freshness(
            200, [("Date", Self.t0Text), ("Cache-Control", "max-age=3600")] + lines.map { ("Age", $0) })
        #expect(freshness.initialAge == expected)
    }

    // MARK: §4.2.2 Heuristic freshness

    @Test(
        "§4.2.2: heuristic freshness for the heuristically cacheable statuses with Last-Modified, a tenth of its age",
        arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristic(_ status: Int) throws {
        let freshness = try Self.freshness(
            status, [("Date", Self.t0Text), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")])
        #expect(!freshness.isExplicit)
        #expect(freshness.lifetime == 8_640)
        #expect(try Self.stores(status, [("Date", Self.t0Text), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]))
    }

    @Test(
        "§4.2.2: no heuristic freshness, and not stored, for other statuses unless public",
        arguments: [201, 202, 403, 502, 503, 504, 599])
    func noHeuristic(_ status: Int) throws {
        let pairs = [("Date", Self.t0Text), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]
        #expect(try Self.freshness(status, pairs).lifetime == 0)
        #expect(try !Self.stores(status, pairs))
        let isPublic = pairs + [("Cache-Control", "public")]
        #expect(try Self.freshness(status, isPublic).lifetime == 8_640)
        #expect(try Self.stores(status, isPublic))
    }

    @Test("§4.2.2: a heuristic lifetime is at most a week; an explicit one wins; a bad Last-Modified gives none")
    func heuristicBounds() throws {
        let old = try Self.freshness(200, [("Date", Self.t0Text), ("Last-Modified", "Mon, 01 Jan 2001 00:00:00 GMT")])
        #expect(old.lifetime == 7 * 86_400)
        let explicit = try Self.freshness(
            200,
            [("Date", Self.t0Text), ("Last-Modified", "Mon, 01 Jan 2001 00:00:00 GMT"), ("Cache-Control", "max-age=5")])
        #expect(explicit.lifetime == 5 && explicit.isExplicit)
        let bad = try Self.freshness(200, [("Date", Self.t0Text), ("Last-Modified", "yesterday")])
        #expect(bad.lifetime == 0)
    }

    // MARK: §3 Storing

    @Test(
        "§3: any final status with explicit freshness is stored; 206, 304 and 1xx never",
        arguments: [
            (200, true), (299, true), (302, true), (400, true), (500, true), (599, true), (206, false), (304, false),
            (100, false),
        ])
    func storesExplicit(_ status: Int, _ expected: Bool) throws {
        #expect(try Self.stores(status, [("Cache-Control", "max-age=3600")]) == expected)
    }

    @Test("§5.2.2.3: must-understand stores despite no-store for an understood status, and never for another")
    func mustUnderstand() throws {
        #expect(try Self.stores(200, [("Cache-Control", "max-age=3600, no-store, must-understand")]))
        #expect(
            try Fixture.refusal(599, [("Cache-Control", "max-age=3600, no-store, must-understand")]) == .mustUnderstand)
        #expect(try Fixture.refusal(599, [("Cache-Control", "max-age=3600, must-understand")]) == .mustUnderstand)
        #expect(try Fixture.refusal(200, [("Cache-Control", "max-age=3600, no-store")]) == .noStore)
    }

    // MARK: RFC 8246 immutable, RFC 5861 stale-while-revalidate and stale-if-error

    @Test("RFC 8246 §2: a fresh immutable response answers a reload (max-age=0); once stale it is validated")
    func immutable() throws {
        let pairs = [("Cache-Control", "max-age=100, immutable"), ("ETag", #""a""#)]
        #expect(try Self.use(pairs, request: "max-age=0", after: 10) == .serve(age: 10))
        #expect(try Self.use(pairs, request: "no-cache", after: 10) == .validate, "no-cache still validates")
        #expect(try Self.use(pairs, request: "max-age=0", after: 200) == .validate)
        #expect(try Self.use([("Cache-Control", "max-age=100")], request: "max-age=0", after: 10) == .validate)
    }

    @Test("RFC 5861 §3: within the stale-while-revalidate window the stale response answers while it is validated")
    func staleWhileRevalidate() throws {
        let pairs = [("Cache-Control", "max-age=1, stale-while-revalidate=4"), ("ETag", #""a""#)]
        #expect(try Self.use(pairs, after: 0.5) == .serve(age: 0.5))
        #expect(try Self.use(pairs, after: 3) == .serveWhileRevalidating(age: 3))
        #expect(try Self.use(pairs, after: 6) == .validate, "past the window")
        let strict = [("Cache-Control", "max-age=1, stale-while-revalidate=4, must-revalidate")]
        #expect(try Self.use(strict, after: 3) == .validate)
    }

    @Test("RFC 5861 §4: stale-if-error, of the response or the request, allows the stale response on a failure")
    func staleIfError() throws {
        let now = { (seconds: Double) in Self.t0.addingTimeInterval(seconds) }
        let stored = try Fixture.stored([("Cache-Control", "max-age=2, stale-if-error=60")])
        #expect(CachePolicy.servesOnError(stored, request: CacheControl(), at: now(30)))
        #expect(!CachePolicy.servesOnError(stored, request: CacheControl(), at: now(70)))
        let plain = try Fixture.stored([("Cache-Control", "max-age=2")])
        #expect(!CachePolicy.servesOnError(plain, request: CacheControl(), at: now(30)))
        #expect(CachePolicy.servesOnError(plain, request: CacheControl("stale-if-error=60"), at: now(30)))
        let strict = try Fixture.stored([("Cache-Control", "max-age=2, stale-if-error=60, must-revalidate")])
        #expect(!CachePolicy.servesOnError(strict, request: CacheControl(), at: now(30)))
        #expect(
            try Self.stores(200, [("Cache-Control", "max-age=0, stale-if-error=60")]), "stale at once, still useful")
        #expect(try Self.stores(200, [("Cache-Control", "max-age=0, stale-while-revalidate=60")]))
        #expect(try !Self.stores(200, [("Cache-Control", "max-age=0, stale-if-error=60, must-revalidate")]))
        #expect([500, 502, 503, 504].allSatisfy(CachePolicy.isServerError))
        #expect(![200, 404, 501].contains(where: CachePolicy.isServerError))
    }
}

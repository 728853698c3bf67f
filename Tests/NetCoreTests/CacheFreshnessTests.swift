import Foundation
import Testing
import NetCore

/// The cache's pure decisions: directives, freshness and age, and what may be used, validated and stored
/// (RFC 9111 §3, §4.2, §5.2), at given times, never the wall clock.
@Suite("Response cache: directives, freshness and policy (RFC 9111)")
struct CacheFreshnessTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    /// `t0` as an HTTP date.
    static let t0Text = "Tue, 14 Nov 2023 22:13:20 GMT"

    static func fields(_ pairs: [(String, String)]) throws -> HTTPHeaderFields {
        try HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) })
    }

    static func head(_ status: Int = 200, _ pairs: [(String, String)]) throws -> HTTPResponseHead {
        HTTPResponseHead(statusCode: status, headerFields: try fields(pairs))
    }

    static func request(_ pairs: [(String, String)] = []) throws -> HTTPRequestHead {
        try HTTPRequestHead(
            method: .get, url: URL(string: "https://api.test/v1/items?page=1")!, headerFields: fields(pairs))
    }

    static func stored(_ pairs: [(String, String)], receivedAt: Date = t0) throws -> CachedResponse {
        try #require(
            CachedResponse(
                head: head(200, pairs), body: Data("body".utf8), request: request(), partition: .of(request()),
                requestTime: receivedAt, responseTime: receivedAt))
    }

    // MARK: Cache-Control

    @Test("directives: names in any case, quoted arguments with commas, unknown ones skipped")
    func parsesDirectives() {
        let control = CacheControl(
            #"Max-Age=60, no-cache="Set-Cookie, X-A", MUST-REVALIDATE, private, s-maxage=5, ext=1"#)
        #expect(control.maxAge == 60)
        #expect(control.noCache && control.mustRevalidate && control.isPrivate)
        #expect(!control.noStore && control.maxStale == nil)
    }

    @Test("a repeated or malformed max-age makes the response stale; a huge one is capped at 2^31")
    func maxAgeEdges() {
        #expect(CacheControl("max-age=60, max-age=120").maxAge == 0)
        #expect(CacheControl("max-age=abc").maxAge == 0)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl(#"max-age="30""#).maxAge == 30)
        #expect(CacheControl("max-age=99999999999999999999").maxAge == CacheControl.maximumDelta)
    }

    @Test("request directives: max-stale without a value accepts any staleness; min-fresh; only-if-cached")
    func requestDirectives() {
        let control = CacheControl("max-stale, min-fresh=10, only-if-cached, no-store")
        #expect(control.maxStale == Int.max)
        #expect(control.minFresh == 10)
        #expect(control.onlyIfCached && control.noStore)
        #expect(CacheControl("max-stale=30").maxStale == 30)
    }

    @Test("Pragma: no-cache counts on a request without Cache-Control only")
    func pragma() throws {
        #expect(CacheControl(try Self.fields([("Pragma", "no-cache")]), isRequest: true).noCache)
        #expect(
            !CacheControl(try Self.fields([("Pragma", "no-cache"), ("Cache-Control", "max-age=5")]), isRequest: true)
                .noCache)
        #expect(!CacheControl(try Self.fields([("Pragma", "no-cache")])).noCache, "not on a response")
    }

    @Test("several Cache-Control fields are read as one list")
    func repeatedFields() throws {
        let control = CacheControl(try Self.fields([("Cache-Control", "max-age=5"), ("Cache-Control", "no-store")]))
        #expect(control.maxAge == 5 && control.noStore)
    }

    // MARK: Freshness and age

    @Test("max-age wins over Expires; Expires counts from Date; an Expires that is no date is stale")
    func lifetime() throws {
        let expires = "Tue, 14 Nov 2023 22:23:20 GMT"  // t0 + 600
        let both = try Self.head(200, [("Date", Self.t0Text), ("Expires", expires), ("Cache-Control", "max-age=60")])
        #expect(CacheFreshness(head: both, requestTime: Self.t0, responseTime: Self.t0).lifetime == 60)
        let onlyExpires = try Self.head(200, [("Date", Self.t0Text), ("Expires", expires)])
        #expect(CacheFreshness(head: onlyExpires, requestTime: Self.t0, responseTime: Self.t0).lifetime == 600)
        let invalid = try Self.head(200, [("Date", Self.t0Text), ("Expires", "0")])
        #expect(CacheFreshness(head: invalid, requestTime: Self.t0, responseTime: Self.t0).lifetime == 0)
    }

    @Test("without max-age, Expires or Last-Modified there is no heuristic freshness: stale at once")
    func noHeuristic() throws {
        let head = try Self.head(200, [("ETag", #""a""#), ("Date", Self.t0Text)])
        let freshness = CacheFreshness(head: head, requestTime: Self.t0, responseTime: Self.t0)
        #expect(freshness.lifetime == 0 && !freshness.isExplicit)
        #expect(!freshness.isFresh(at: Self.t0))
    }

    @Test("age: the Age field plus the time in transit, or the Date's distance if larger, plus time stored")
    func age() throws {
        let sent = Self.t0
        let received = Self.t0.addingTimeInterval(2)
        let withAge = try Self.head(200, [("Date", Self.t0Text), ("Age", "10"), ("Cache-Control", "max-age=60")])
        let freshness = CacheFreshness(head: withAge, requestTime: sent, responseTime: received)
        #expect(freshness.initialAge == 12)
        #expect(freshness.age(at: received.addingTimeInterval(30)) == 42)
        #expect(freshness.isFresh(at: received.addingTimeInterval(47)))
        #expect(!freshness.isFresh(at: received.addingTimeInterval(48)))
        // A Date 100 s before the response arrived makes it at least 100 s old.
        let oldDate = try Self.head(200, [("Date", Self.t0Text)])
        let late = CacheFreshness(
            head: oldDate, requestTime: Self.t0.addingTimeInterval(100), responseTime: Self.t0.addingTimeInterval(100))
        #expect(late.initialAge == 100)
        // A clock that goes back never makes a response younger.
        #expect(freshness.age(at: Self.t0.addingTimeInterval(-1000)) == 12)
    }

    // MARK: Use

    @Test("fresh is served without the network; stale, or no-cache on either side, is validated")
    func use() throws {
        let entry = try Self.stored([("Cache-Control", "max-age=60")])
        #expect(CachePolicy.use(entry, request: CacheControl(), at: Self.t0.addingTimeInterval(59)) == .serve(age: 59))
        #expect(CachePolicy.use(entry, request: CacheControl(), at: Self.t0.addingTimeInterval(60)) == .validate)
        #expect(CachePolicy.use(entry, request: CacheControl("no-cache"), at: Self.t0) == .validate)
        let noCache = try Self.stored([("Cache-Control", "max-age=60, no-cache"), ("ETag", #""a""#)])
        #expect(CachePolicy.use(noCache, request: CacheControl(), at: Self.t0) == .validate)
    }

    @Test(
        "the request's max-age and min-fresh ask for younger responses; max-stale accepts older unless must-revalidate")
    func requestLimits() throws {
        let entry = try Self.stored([("Cache-Control", "max-age=60")])
        let at30 = Self.t0.addingTimeInterval(30)
        #expect(CachePolicy.use(entry, request: CacheControl("max-age=10"), at: at30) == .validate)
        #expect(CachePolicy.use(entry, request: CacheControl("max-age=30"), at: at30) == .serve(age: 30))
        #expect(CachePolicy.use(entry, request: CacheControl("min-fresh=40"), at: at30) == .validate)
        let at90 = Self.t0.addingTimeInterval(90)
        #expect(CachePolicy.use(entry, request: CacheControl("max-stale=30"), at: at90) == .serveStale(age: 90))
        #expect(CachePolicy.use(entry, request: CacheControl("max-stale=29"), at: at90) == .validate)
        #expect(CachePolicy.use(entry, request: CacheControl("max-stale"), at: at90) == .serveStale(age: 90))
        let strict = try Self.stored([("Cache-Control", "max-age=60, must-revalidate")])
        #expect(CachePolicy.use(strict, request: CacheControl("max-stale"), at: at90) == .validate)
    }

    // MARK: Validation

    @Test("validation asks with If-None-Match and If-Modified-Since; nothing to ask with, no validation")
    func validation() throws {
        let request = TransportRequest(head: try Self.request([("Accept", "application/json")]))
        let entry = try Self.stored([("ETag", #"W/"v1""#), ("Last-Modified", "Mon, 01 Jan 2001 00:00:00 GMT")])
        let conditional = try #require(CachePolicy.validation(of: request, for: entry))
        #expect(conditional.value(forHeader: "If-None-Match") == #"W/"v1""#)
        #expect(conditional.value(forHeader: "If-Modified-Since") == "Mon, 01 Jan 2001 00:00:00 GMT")
        #expect(conditional.value(forHeader: "Accept") == "application/json")
        #expect(CachePolicy.validation(of: request, for: try Self.stored([("Cache-Control", "max-age=1")])) == nil)
    }

    @Test("a 304 validates the stored response when it names the same tag (weakly) or none")
    func validates() throws {
        let entry = try Self.stored([("ETag", #""v1""#)])
        #expect(CachePolicy.validates(try Self.head(304, [("ETag", #"W/"v1""#)]), entry))
        #expect(CachePolicy.validates(try Self.head(304, []), entry))
        #expect(!CachePolicy.validates(try Self.head(304, [("ETag", #""v2""#)]), entry))
        #expect(
            !CachePolicy.validates(
                try Self.head(304, [("ETag", #""v1""#)]), try Self.stored([("Last-Modified", Self.t0Text)])))
    }

    // MARK: Storing

    @Test("stored: complete final responses that can be validated or stay fresh; private ones too")
    func stores() throws {
        #expect(try Self.refusal(200, [("ETag", #""a""#)]) == nil)
        #expect(try Self.refusal(203, [("Cache-Control", "max-age=10")]) == nil)
        #expect(try Self.refusal(204, [("Last-Modified", Self.t0Text)]) == nil)
        #expect(try Self.refusal(200, [("Cache-Control", "private, max-age=10")]) == nil)
        #expect(try Self.refusal(404, [("Cache-Control", "max-age=10")]) == nil)
    }

    @Test("a response that is not stored says why: the first rule of RFC 9111 §3 it fails")
    func refusalReasons() throws {
        #expect(try Self.refusal(200, []) == .noFreshnessOrValidator, "neither fresh nor validatable: useless")
        #expect(
            try Self.refusal(200, [("Cache-Control", "max-age=10, no-cache")]) == .noCacheWithoutValidator,
            "must be validated but cannot be")
        #expect(try Self.refusal(200, [("Cache-Control", "no-store"), ("ETag", #""a""#)]) == .noStore)
        #expect(try Self.refusal(200, [("ETag", #""a""#)], request: "no-store") == .noStore)
        #expect(try Self.refusal(200, [("ETag", #""a""#), ("Vary", "Accept, *")]) == .varyAsterisk)
        #expect(try Self.refusal(200, [("ETag", #""a""#)], complete: false) == .incomplete)
        #expect(try Self.refusal(206, [("ETag", #""a""#)]) == .status)
        #expect(try Self.refusal(304, [("ETag", #""a""#)]) == .status)
        #expect(
            try Self.refusal(599, [("Cache-Control", "max-age=10, no-store, must-understand")]) == .mustUnderstand)
        #expect(
            try Self.refusal(500, [("ETag", #""a""#)]) == .statusNeedsExplicitFreshness,
            "neither explicit freshness nor a heuristically cacheable status")
        #expect(
            try Self.refusal(200, [("ETag", #""a""#), ("Cache-Control", "no-store")], complete: false) == .incomplete,
            "the first rule failed is the one named")
    }

    /// Why `CachePolicy` does not store a response of `status` with `pairs` to a request with `request`'s
    /// directives; `nil` when it stores it.
    static func refusal(_ status: Int, _ pairs: [(String, String)], complete: Bool = true, request: String = "")
        throws -> CacheEvent.NotStoredReason?
    {
        CachePolicy.storageRefusal(
            try head(status, pairs), isComplete: complete, request: CacheControl(request), requestTime: t0,
            responseTime: t0)
    }

    @Test("the cache takes part in plain GETs only; unsafe successes invalidate")
    func takesPart() throws {
        #expect(CachePolicy.takesPart(TransportRequest(head: try Self.request())))
        #expect(!CachePolicy.takesPart(TransportRequest(head: try Self.request([("If-None-Match", #""a""#)]))))
        #expect(!CachePolicy.takesPart(TransportRequest(head: try Self.request([("Range", "bytes=0-1")]))))
        #expect(!CachePolicy.takesPart(TransportRequest(head: try Self.request([("Cache-Control", "no-store")]))))
        var post = try Self.request()
        post.method = .post
        #expect(!CachePolicy.takesPart(TransportRequest(head: post)))
        #expect(
            !CachePolicy.takesPart(TransportRequest(head: try Self.request(), body: UploadSource(data: Data("x".utf8))))
        )
        #expect(CachePolicy.invalidates(method: .post, status: 201))
        #expect(CachePolicy.invalidates(method: .delete, status: 302))
        #expect(!CachePolicy.invalidates(method: .put, status: 500))
        #expect(!CachePolicy.invalidates(method: .get, status: 200))
        #expect(
            CachePolicy.invalidates(method: .patch, status: 200)
                && CachePolicy.invalidates(method: .connect, status: 200))
        #expect(
            !CachePolicy.invalidates(method: .head, status: 200)
                && !CachePolicy.invalidates(method: .options, status: 204))
    }

    @Test("invalidated: the target, and Location and Content-Location of the same origin (relative ones resolved)")
    func invalidatedTargets() throws {
        var post = try HTTPRequestHead(method: .post, url: URL(string: "https://api.test/v1/items?x=1")!)
        let targets = { (pairs: [(String, String)]) throws -> [String] in
            CachePolicy.invalidatedTargets(of: post, response: try Self.head(201, pairs)).map {
                let key = CacheKey($0)
                return "\(key.method.rawValue) \(key.scheme)://\(key.authority)\(key.path)"
            }
        }
        #expect(try targets([]) == ["POST https://api.test/v1/items?x=1"])
        #expect(
            try targets([("Location", "items/7"), ("Content-Location", "https://API.test:443/v1/items/7?full")]) == [
                "POST https://api.test/v1/items?x=1", "GET https://api.test/v1/items/7",
                "GET https://api.test/v1/items/7?full",
            ])
        #expect(try targets([("Location", "/v1/items?x=1")]).count == 1, "the target itself is not repeated")
        #expect(
            try targets([
                ("Location", "https://other.test/v1/items/7"), ("Content-Location", "http://api.test/v1/items/7"),
            ]).count == 1, "another origin (scheme, host or port) is left alone")
        #expect(try targets([("Location", "http://[::1")]).count == 1, "a Location that is no URL is ignored")
        #expect(try targets([("Location", "")]).count == 1)
        post.method = .delete
        #expect(try targets([("Location", "/v1/gone")]).count == 2)
        let explicit = try HTTPRequestHead(url: URL(string: "HTTPS://API.test:443/v1/a")!)
        #expect(CacheKey(explicit) == CacheKey(try HTTPRequestHead(url: URL(string: "https://api.test/v1/a")!)))
        #expect(CacheKey(try HTTPRequestHead(url: URL(string: "https://[::1]:8443/v1/a")!)).authority == "[::1]:8443")
    }
}

import Foundation
import NetKitLock
import Testing
import NetCore

@Suite("Cookie jar: storage and matching rules (RFC 6265 §5.1, §5.3, §5.4)")
struct CookieJarTests {
    /// A settable clock for expiry.
    final class Now: Sendable {
        let value = Lock(Date(timeIntervalSince1970: 1_700_000_000))
        var date: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    let now = Now()
    var jar: CookieJar { CookieJar(now: { [now] in now.date }) }

    func url(_ text: String) -> URL { URL(string: text)! }

    /// The `Cookie` header the jar would send to `text`.
    func header(_ jar: CookieJar, _ text: String) -> String {
        jar.cookies(for: url(text)).map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    func receive(_ jar: CookieJar, _ fields: String..., from text: String) {
        jar.storeCookies(from: try! HTTPHeaderFields(fields.map { (name: "Set-Cookie", value: $0) }), for: url(text))
    }

    @Test("domain-match, default-path and path-match")
    func matchingRules() {
        #expect(CookieMatching.domain("www.example.com", matches: "example.com"))
        #expect(CookieMatching.domain("example.com", matches: "example.com"))
        #expect(!CookieMatching.domain("badexample.com", matches: "example.com"))
        #expect(!CookieMatching.domain("example.com", matches: "www.example.com"))
        #expect(!CookieMatching.domain("1.2.3.4", matches: "2.3.4"), "an IP address matches only itself")
        #expect(CookieMatching.defaultPath(of: "/docs/web/page") == "/docs/web")
        #expect(CookieMatching.defaultPath(of: "/docs") == "/")
        #expect(CookieMatching.defaultPath(of: "") == "/")
        #expect(CookieMatching.defaultPath(of: "noslash") == "/")
        #expect(CookieMatching.path("/docs", matches: "/docs"))
        #expect(CookieMatching.path("/docs/web", matches: "/docs"))
        #expect(CookieMatching.path("/docs/web", matches: "/docs/"))
        #expect(!CookieMatching.path("/docsets", matches: "/docs"))
        #expect(!CookieMatching.path("/", matches: "/docs"))
        #expect(
            CookieMatching.isIPAddress("127.0.0.1") && CookieMatching.isIPAddress("::1")
                && !CookieMatching.isIPAddress("localhost"))
    }

    @Test("a host-only cookie goes back to its host only; a Domain cookie to the domain and its subdomains")
    func domains() {
        let jar = jar
        receive(jar, "host=1", from: "https://www.example.com/")
        receive(jar, "wide=2; Domain=example.com", from: "https://www.example.com/")
        #expect(header(jar, "https://www.example.com/") == "host=1; wide=2")
        #expect(header(jar, "https://example.com/") == "wide=2")
        #expect(header(jar, "https://api.example.com/") == "wide=2")
        #expect(header(jar, "https://a.www.example.com/") == "wide=2", "host-only: not even to a subdomain")
        #expect(header(jar, "https://example.org/") == "")
        #expect(header(jar, "https://notexample.com/") == "")
        #expect(jar.allCookies.map(\.isHostOnly) == [true, false])
    }

    @Test("a cookie never goes to another host than it may: foreign and bare top-level domains are refused")
    func neverAnotherHost() {
        let jar = jar
        receive(
            jar, "a=1; Domain=evil.com", "b=2; Domain=com", "c=3; Domain=ample.com", "d=4; Domain=www.example.com.evil",
            from: "https://www.example.com/")
        receive(jar, "e=5; Domain=sub.www.example.com", from: "https://www.example.com/")
        #expect(jar.allCookies.isEmpty)
        // A bare name is accepted only as the host's own, host-only.
        receive(jar, "f=6; Domain=localhost", from: "http://localhost:8080/")
        #expect(header(jar, "http://localhost/") == "f=6")
        #expect(jar.allCookies.first?.isHostOnly == true)
        #expect(header(jar, "http://127.0.0.1/") == "", "127.0.0.1 and localhost are two hosts")
        receive(jar, "g=7", from: "http://127.0.0.1:9/")
        #expect(header(jar, "http://127.0.0.1:10/") == "g=7", "ports do not separate cookies (RFC 6265 §8.5)")
        #expect(header(jar, "http://localhost/") == "f=6")
    }

    @Test("paths: the attribute, else the default path of the request; longer paths first, then older")
    func pathsAndOrder() {
        let jar = jar
        receive(jar, "root=1; Path=/", from: "https://a.test/docs/page")
        now.advance(1)
        receive(jar, "dflt=2", from: "https://a.test/docs/page")
        receive(jar, "deep=3; Path=/docs/web", from: "https://a.test/")
        now.advance(1)
        receive(jar, "later=4; Path=/", from: "https://a.test/")
        #expect(header(jar, "https://a.test/docs/web/x?q=1") == "deep=3; dflt=2; root=1; later=4")
        #expect(header(jar, "https://a.test/docs") == "dflt=2; root=1; later=4")
        #expect(header(jar, "https://a.test/docsets") == "root=1; later=4")
        #expect(jar.allCookies.first { $0.name == "dflt" }?.path == "/docs")
    }

    @Test("the same name, domain and path replaces a cookie and keeps its creation time")
    func replacement() {
        let jar = jar
        receive(jar, "a=1; Path=/", from: "https://a.test/")
        let created = now.date
        now.advance(10)
        receive(jar, "b=2; Path=/", from: "https://a.test/")
        receive(jar, "a=3; Path=/", from: "https://a.test/")
        receive(jar, "a=4; Path=/x", from: "https://a.test/")
        #expect(header(jar, "https://a.test/") == "a=3; b=2", "the replaced cookie keeps its place")
        #expect(jar.allCookies.first { $0.value == "3" }?.createdAt == created)
        #expect(jar.allCookies.count == 3)
    }

    @Test("Expires and Max-Age: Max-Age wins; expiry in the past deletes; expired cookies are not sent")
    func expiry() {
        let jar = jar
        receive(jar, "a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT", from: "https://a.test/")
        receive(jar, "b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT", from: "https://a.test/")
        receive(jar, "c=3", from: "https://a.test/")
        #expect(header(jar, "https://a.test/") == "a=1; b=2; c=3")
        #expect(jar.allCookies.first?.expiresAt == now.date.addingTimeInterval(60))
        #expect(
            jar.allCookies.first { $0.name == "b" }?.expiresAt == now.date.addingTimeInterval(400 * 86_400),
            "an expiry is capped at 400 days")
        now.advance(61)
        #expect(header(jar, "https://a.test/") == "b=2; c=3")
        receive(jar, "b=gone; Max-Age=0", from: "https://a.test/")
        receive(jar, "c=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: "https://a.test/")
        #expect(header(jar, "https://a.test/") == "")
        #expect(jar.allCookies.isEmpty)
        receive(jar, "d=1; Max-Age=-1", from: "https://a.test/")
        #expect(jar.allCookies.isEmpty, "a cookie born expired is not stored")
    }

    @Test("Secure cookies are set and sent over https only, and a plain origin cannot replace one")
    func secure() {
        let jar = jar
        receive(jar, "s=1; Secure", from: "http://a.test/")
        #expect(jar.allCookies.isEmpty)
        receive(jar, "s=1; Secure", "p=2", from: "https://a.test/")
        #expect(header(jar, "https://a.test/") == "s=1; p=2")
        #expect(header(jar, "http://a.test/") == "p=2")
        receive(jar, "s=plain", from: "http://a.test/")
        #expect(header(jar, "https://a.test/") == "s=1; p=2")
        receive(
            jar, "__Secure-x=1", "__Host-y=1; Secure; Path=/; Domain=a.test", "__Host-z=1; Secure; Path=/",
            from: "https://a.test/")
        #expect(jar.allCookies.map(\.name) == ["s", "p", "__Host-z"])
    }

    @Test("HttpOnly and SameSite are kept as attributes, and such cookies are sent")
    func attributesKept() throws {
        let jar = jar
        receive(jar, "a=1; HttpOnly; SameSite=Strict", from: "https://a.test/")
        let cookie = try #require(jar.allCookies.first)
        #expect(cookie.isHTTPOnly && cookie.sameSite == .strict)
        #expect(header(jar, "https://a.test/") == "a=1")
    }

    @Test("a cookie's value never appears in its description, debug description or mirror")
    func redaction() {
        let cookie = Cookie(
            name: "session", value: "s3cr3t-value", domain: ".Example.com", isSecure: true, sameSite: .lax)
        #expect(cookie.domain == "example.com")
        for text in [
            "\(cookie)", String(reflecting: cookie), String(describing: [cookie]),
            {
                var dumped = ""
                dump(cookie, to: &dumped)
                return dumped
            }(),
        ] {
            #expect(!text.contains("s3cr3t"), "\(text)")
            #expect(text.contains("session"))
        }
        #expect(cookie.description == "session=<redacted>; Domain=example.com; Path=/; Secure; SameSite=Lax; HostOnly")
    }

    @Test("setCookie stores a cookie of the caller's own, refusing what could not travel")
    func setCookie() throws {
        let jar = jar
        try jar.setCookie(Cookie(name: "token", value: "t", domain: "API.test", path: "/v1"))
        #expect(header(jar, "https://api.test/v1/users") == "token=t")
        #expect(header(jar, "https://api.test/v2") == "")
        #expect(throws: CookieError.invalidName("a b")) {
            try jar.setCookie(Cookie(name: "a b", value: "1", domain: "a.test"))
        }
        #expect(throws: CookieError.invalidName("")) {
            try jar.setCookie(Cookie(name: "", value: "1", domain: "a.test"))
        }
        #expect(throws: CookieError.invalidValue(name: "a")) {
            try jar.setCookie(Cookie(name: "a", value: "1; b=2", domain: "a.test"))
        }
        #expect(throws: CookieError.invalidDomain("")) { try jar.setCookie(Cookie(name: "a", value: "1", domain: "")) }
        #expect(throws: CookieError.invalidPath("x")) {
            try jar.setCookie(Cookie(name: "a", value: "1", domain: "a.test", path: "x"))
        }
        #expect(!"\(CookieError.invalidValue(name: "a"))".contains("b=2"))
        jar.removeAll()
        #expect(jar.allCookies.isEmpty)
    }

    @Test("the jar keeps at most 50 cookies per domain, dropping the least recently used")
    func perDomainLimit() {
        let jar = jar
        receive(jar, "kept=1; Path=/k", from: "https://a.test/")
        for index in 0..<49 { receive(jar, "c\(index)=1; Path=/a", from: "https://a.test/") }
        now.advance(1)
        #expect(header(jar, "https://a.test/k") == "kept=1", "the oldest cookie is used now")
        now.advance(1)
        receive(jar, "fresh=1", from: "https://a.test/")
        #expect(jar.allCookies.count == CookieStore.maximumPerDomain)
        #expect(jar.allCookies.contains { $0.name == "kept" } && jar.allCookies.contains { $0.name == "fresh" })
        #expect(!jar.allCookies.contains { $0.name == "c0" }, "the least recently used went")
        receive(jar, "other=1", from: "https://b.test/")
        #expect(jar.allCookies.count == CookieStore.maximumPerDomain + 1, "another domain has its own allowance")
    }

    @Test("the jar keeps at most 3000 cookies in all")
    func totalLimit() {
        var store = CookieStore()
        let date = now.date
        for domain in 0..<61 {
            for index in 0..<50 {
                store.receive(
                    "c\(index)=1", from: CookieTarget(host: "d\(domain).test", path: "/", isSecure: true), at: date)
            }
        }
        #expect(store.all(at: date).count == CookieStore.maximumCount)
        #expect(store.all(at: date).contains { $0.domain == "d60.test" }, "the newest stay")
        #expect(!store.all(at: date).contains { $0.domain == "d0.test" && $0.name == "c0" }, "the oldest went")
    }

    /// The responses a test transport gives the stage, and the `Cookie` headers it saw.
    final class Script: Sendable {
        let sent = Lock<[String]>([])
        let fromCache = Lock(false)

        func next(setting cookie: String) -> StageNext {
            { request in
                self.sent.withLock { $0.append(request.value(forHeader: "Cookie") ?? "-") }
                var exchange = Exchange(
                    request: request,
                    response: TransportResponse(
                        head: HTTPResponseHead(
                            statusCode: 500, headerFields: try HTTPHeaderFields([(name: "Set-Cookie", value: cookie)])),
                        body: ResponseBody(data: Data())
                    ))
                exchange.isFromCache = self.fromCache.withLock { $0 }
                return exchange
            }
        }
    }

    @Test(
        "the engine's stage adds the jar's cookies after the request's own, and keeps responses' cookies unless cached")
    func stage() async throws {
        let jar = jar
        receive(jar, "a=1", "own=jar", from: "https://a.test/")
        var head = try HTTPRequestHead(url: url("https://a.test/x"))
        try head.headerFields.setValue("own=caller", for: "Cookie")
        let stage = CookieStage(jar: jar)
        let script = Script()
        let exchange = try await stage.run(TransportRequest(head: head), next: script.next(setting: "b=2"))
        #expect(
            script.sent.withLock { $0 } == ["own=caller; a=1"],
            "the request's own cookie wins over the jar's of that name")
        #expect(exchange.request.cookiesFromJar)
        #expect(header(jar, "https://a.test/") == "a=1; own=jar; b=2", "a 500's cookies are kept too")
        jar.removeAll()
        script.fromCache.withLock { $0 = true }
        _ = try await stage.run(TransportRequest(head: head), next: script.next(setting: "c=3"))
        #expect(jar.allCookies.isEmpty, "a response the cache answered sets no cookie")
    }
}

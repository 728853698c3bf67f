import Foundation
import Testing
import NetCore

/// Text from the wire is compared as bytes: Unicode that Swift's `String` takes as equal (canonical equivalence:
/// U+212A KELVIN SIGN and "K", U+212B ANGSTROM SIGN and "Å", "é" and "e" + U+0301) never matches, splits or
/// replaces differently from its bytes, and never crashes the matcher.
@Suite("Cookies compare wire text as bytes (RFC 6265 §5.1.3, §5.1.4)")
struct CookieByteMatchingTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func target(_ host: String, _ path: String = "/", secure: Bool = true) -> CookieTarget {
        CookieTarget(host: host, path: path, isSecure: secure)
    }

    /// The `name=value` pairs `store` sends to `target`.
    func sent(_ store: inout CookieStore, to target: CookieTarget) -> [String] {
        store.cookies(for: target, at: now).map(\.pair)
    }

    @Test(
        "a Path that Swift's String equates with the request's prefix neither matches nor traps",
        arguments: [
            ("/\u{212A}", "/Kx"),  // KELVIN SIGN, the hostile-server report: "String index is out of bounds"
            ("/\u{212A}", "/K"),
            ("/\u{212B}", "/\u{C5}x"),  // ANGSTROM SIGN and Å
            ("/\u{C5}", "/A\u{30A}"),  // precomposed and combining
            ("/e\u{301}", "/\u{E9}"),
            ("/\u{E9}", "/e\u{301}/x"),
            ("/\u{FF2B}", "/K"),  // FULLWIDTH K: never equal, in String or in bytes
            ("/\u{DF}", "/ss"),  // ß and ss
        ])
    func pathMatchIsByteWise(cookiePath: String, requestPath: String) {
        #expect(!CookieMatching.path(requestPath, matches: cookiePath))
        var store = CookieStore()
        store.receive("a=b; Path=" + cookiePath, from: target("a.test"), at: now)
        #expect(store.all(at: now).map(\.path) == [cookiePath], "stored with the server's bytes")
        #expect(sent(&store, to: target("a.test", requestPath)) == [])
        #expect(sent(&store, to: target("a.test", cookiePath + "/x")) == ["a=b"], "its own bytes still match")
    }

    @Test("the jar's public API with the KELVIN SIGN path: no crash, no cookie")
    func kelvinThroughTheJar() {
        let jar = CookieJar(now: { [now] in now })
        jar.storeCookies(
            from: try! HTTPHeaderFields([(name: "Set-Cookie", value: "a=b; Path=/\u{212A}")]),
            for: URL(string: "https://a.test/")!)
        #expect(jar.cookies(for: URL(string: "https://a.test/Kx")!).isEmpty)
        #expect(jar.cookies(for: URL(string: "https://a.test/K")!).isEmpty)
    }

    @Test("a host-only cookie goes to its host's bytes only, not to a host Swift's String equates with it")
    func hostOnlyIsByteWise() {
        var store = CookieStore()
        store.receive("a=1", from: target("\u{E5}.test"), at: now)
        #expect(sent(&store, to: target("a\u{30A}.test")) == [])
        #expect(sent(&store, to: target("\u{E5}.test")) == ["a=1"])
    }

    @Test("domain-match compares bytes: no match across canonically equal Unicode")
    func domainMatchIsByteWise() {
        #expect(!CookieMatching.domain("a.b\u{C5}.test", matches: "\u{212B}.test"))
        #expect(!CookieMatching.domain("\u{C5}.test", matches: "\u{212B}.test"))
        #expect(!CookieMatching.domain("x.\u{212A}.test", matches: "k.test"))
        #expect(CookieMatching.domain("x.\u{E5}.test", matches: "\u{E5}.test"), "the same bytes match")
    }

    @Test("a Domain attribute that is not ASCII is refused, cookie and all (hosts arrive as A-labels)")
    func nonASCIIDomainRefused() {
        var store = CookieStore()
        store.receive("a=1; Domain=\u{212B}.test", from: target("a.b\u{C5}.test"), at: now)
        store.receive("b=1; Domain=\u{212A}.test", from: target("a.k.test"), at: now)
        store.receive("c=1; Domain=b\u{C5}.test", from: target("a.b\u{C5}.test"), at: now)
        #expect(store.all(at: now).isEmpty)
    }

    @Test(
        "names that Swift's String equates are two cookies, not one replacing the other",
        arguments: [("K", "\u{212A}"), ("\u{E9}", "e\u{301}"), ("ss", "\u{DF}"), ("K", "\u{FF2B}")])
    func namesAreBytes(first: String, second: String) {
        var store = CookieStore()
        store.receive(first + "=1", from: target("a.test"), at: now)
        store.receive(second + "=2", from: target("a.test"), at: now)
        #expect(sent(&store, to: target("a.test")) == [first + "=1", second + "=2"])
    }

    @Test("a Secure cookie is shadowed only by a plain cookie of the same name in bytes")
    func shadowingIsByteWise() {
        var store = CookieStore()
        store.receive("K=secure; Secure", from: target("a.test"), at: now)
        store.receive("\u{212A}=plain", from: target("a.test", secure: false), at: now)
        #expect(sent(&store, to: target("a.test")) == ["K=secure", "\u{212A}=plain"])
    }

    @Test("the field is split at the bytes ';' and '=', whatever combining mark follows them")
    func splitsAtBytes() throws {
        let injected = try #require(SetCookieParser.parse("a=b;\u{301}c=d"))
        #expect(injected.name == "a" && injected.value == "b", "no second pair smuggled into the value")
        let combining = try #require(SetCookieParser.parse("a=\u{301}b"))
        #expect(combining.name == "a" && combining.value == "\u{301}b")
        #expect(SetCookieParser.parse("a=b; Path=/\u{301}x")?.path == "/\u{301}x")
        #expect(SetCookieParser.parse("a=b; Secure\u{301}")?.isSecure == false, "an attribute name is its bytes")
        #expect(SetCookieParser.parse("a=b;\u{301} Secure")?.isSecure == false)
        #expect(SetCookieParser.parse("a=b; \u{212A}=1; Domain=\u{212A}")?.domain == "\u{212A}")
        let trimmed = try #require(SetCookieParser.parse("\t a \u{301}= v \t"))
        #expect(trimmed.name == "a \u{301}" && trimmed.value == "v", "only spaces and tabs are trimmed")
    }

    @Test("attribute names match in ASCII case only: non-ASCII look-alikes are other attributes")
    func asciiCaseOnly() {
        #expect(SetCookieParser.parse("a=b; \u{17F}ecure")?.isSecure == false)  // LATIN SMALL LETTER LONG S
        #expect(SetCookieParser.parse("a=b; SECURE")?.isSecure == true)
        #expect(SetCookieParser.parse("a=b; SameSite=\u{212A}")?.sameSite == nil)
        #expect(SetCookieParser.parse("a=b; Max-Age=\u{661}")?.maxAge == nil, "ARABIC-INDIC DIGIT ONE is no digit")
    }

    @Test("the __Host- and __Secure- prefixes are matched on bytes: a combining mark cannot hide them")
    func prefixesAreBytes() {
        var store = CookieStore()
        store.receive("__Host-\u{301}x=1; Domain=a.test", from: target("www.a.test"), at: now)
        store.receive("__SECURE-\u{301}y=1", from: target("www.a.test"), at: now)
        store.receive("__host-z=1; Secure; Path=/", from: target("www.a.test"), at: now)
        #expect(store.all(at: now).map(\.name) == ["__host-z"])
    }

    @Test("a leading '.' and a path's '/' are bytes too")
    func leadingBytes() throws {
        #expect(Cookie(name: "a", value: "1", domain: ".\u{301}a.test").domain == "\u{301}a.test")
        let jar = CookieJar(now: { [now] in now })
        try jar.setCookie(Cookie(name: "a", value: "1", domain: "a.test", path: "/\u{301}"))
        #expect(jar.allCookies.map(\.path) == ["/\u{301}"])
    }
}

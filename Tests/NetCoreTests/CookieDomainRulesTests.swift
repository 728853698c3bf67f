import Foundation
import Testing
import NetCore

/// Which hosts a `Domain` attribute lets a cookie reach (RFC 6265bis §5.7): public suffixes, trailing dots, IP
/// addresses, host-only and domain cookies. The jar here uses a list of the test's own (the same rules as the
/// real list for these names), so that the rules hold whatever list the repository bundles.
@Suite("Cookie Domain rules: public suffixes, trailing dots, IP addresses (RFC 6265bis §5.7)")
struct CookieDomainRulesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    static let suffixes = PublicSuffixes.list(
        PublicSuffixList(
            rules: """
                com
                uk
                co.uk
                io
                github.io
                herokuapp.com
                ck
                *.ck
                !www.ck
                """))

    func store(_ suffixes: PublicSuffixes = Self.suffixes) -> CookieStore {
        CookieStore(publicSuffixes: suffixes)
    }

    func target(_ host: String, _ path: String = "/") -> CookieTarget {
        CookieTarget(host: host, path: path, isSecure: true)
    }

    /// What `store` keeps of `field` from `host`: `domain` and `H` for host-only, or `nil` when refused.
    func kept(_ field: String, from host: String, in suffixes: PublicSuffixes = Self.suffixes) -> String? {
        var store = store(suffixes)
        store.receive(field, from: target(host), at: now)
        return store.all(at: now).first.map { $0.domain + ($0.isHostOnly ? " H" : "") }
    }

    func sent(_ store: inout CookieStore, to host: String) -> [String] {
        store.cookies(for: target(host), at: now).map(\.pair)
    }

    @Test(
        "a Domain that is a public suffix is refused, unless it is the request's host: then host-only",
        arguments: [
            ("a=1; Domain=co.uk", "www.example.co.uk", nil), ("a=1; Domain=co.uk", "co.uk", "co.uk H"),
            ("a=1; Domain=github.io", "ann.github.io", nil), ("a=1; Domain=github.io", "github.io", "github.io H"),
            ("a=1; Domain=herokuapp.com", "app.herokuapp.com", nil), ("a=1; Domain=com", "example.com", nil),
            ("a=1; Domain=test.ck", "a.test.ck", nil), ("a=1; Domain=www.ck", "a.www.ck", "www.ck"),
            ("a=1; Domain=.CO.UK", "a.co.uk", nil), ("a=1; Domain=unlisted", "a.unlisted", nil),
            ("a=1; Domain=example.co.uk", "www.example.co.uk", "example.co.uk"),
            ("a=1; Domain=ann.github.io", "x.ann.github.io", "ann.github.io"),
        ] as [(String, String, String?)])
    func publicSuffixes(field: String, host: String, expected: String?) {
        #expect(kept(field, from: host) == expected)
    }

    @Test("a github.io site's cookie never reaches its sibling sites")
    func siblings() {
        var store = store()
        store.receive("wide=1; Domain=github.io", from: target("ann.github.io"), at: now)
        store.receive("own=1; Domain=ann.github.io", from: target("ann.github.io"), at: now)
        #expect(sent(&store, to: "bob.github.io") == [])
        #expect(sent(&store, to: "ann.github.io") == ["own=1"])
    }

    @Test(
        "trailing dots: a host with one is another host, a Domain with one must match such a host, com. is a suffix",
        arguments: [
            ("a=1; Domain=com.", "example.com.", nil),  // the hostile-server report
            ("a=1; Domain=co.uk.", "example.co.uk.", nil), ("a=1; Domain=com.", "com.", "com. H"),
            ("a=1; Domain=example.com.", "www.example.com.", "example.com."),
            ("a=1; Domain=example.com.", "www.example.com", nil), ("a=1; Domain=example.com", "www.example.com.", nil),
            ("a=1", "example.com.", "example.com. H"),
        ] as [(String, String, String?)])
    func trailingDots(field: String, host: String, expected: String?) {
        #expect(kept(field, from: host) == expected)
    }

    @Test("a cookie of a trailing-dot host goes to trailing-dot hosts only, and the other way round")
    func trailingDotHostsAreDistinct() {
        var store = store()
        store.receive("dotted=1", from: target("example.com."), at: now)
        store.receive("wide=1; Domain=example.com.", from: target("www.example.com."), at: now)
        store.receive("plain=1", from: target("example.com"), at: now)
        #expect(sent(&store, to: "example.com.") == ["dotted=1", "wide=1"])
        #expect(sent(&store, to: "example.com") == ["plain=1"])
        #expect(sent(&store, to: "www.example.com") == [])
    }

    @Test(
        "IP address hosts: a Domain only when it is that address (host-only), never suffix-matched",
        arguments: [
            ("a=1; Domain=127.0.0.1", "127.0.0.1", "127.0.0.1 H"), ("a=1; Domain=0.0.1", "127.0.0.1", nil),
            ("a=1; Domain=0.1", "10.0.0.1", nil), ("a=1; Domain=1", "10.0.0.1", nil),
            ("a=1; Domain=127.0.0.2", "127.0.0.1", nil), ("a=1; Domain=::1", "::1", "::1 H"),
            ("a=1; Domain=[::1]", "::1", "::1 H"), ("a=1; Domain=1", "::1", nil), ("a=1; Domain=:1", "::1", nil),
            ("a=1; Domain=2.3.4", "1.2.3.4", nil), ("a=1; Domain=2.3.4.5", "x.2.3.4.5", nil),
            ("a=1", "192.168.0.1", "192.168.0.1 H"), ("a=1; Domain=.127.0.0.1", "127.0.0.1", "127.0.0.1 H"),
        ] as [(String, String, String?)])
    func ipAddresses(field: String, host: String, expected: String?) {
        #expect(kept(field, from: host, in: .topLevelOnly) == expected)
        #expect(kept(field, from: host) == expected)
    }

    @Test("a leading dot is dropped; an empty Domain, and one that is only a dot, leave the cookie host-only")
    func leadingDotAndEmpty() {
        #expect(kept("a=1; Domain=.example.com", from: "www.example.com") == "example.com")
        #expect(kept("a=1; Domain=..example.com", from: "www.example.com") == nil)
        #expect(kept("a=1; Domain=", from: "www.example.com") == "www.example.com H")
        #expect(kept("a=1; Domain=.", from: "www.example.com") == "www.example.com H")
        #expect(kept("a=1; Domain=example.com; Domain=", from: "www.example.com") == "example.com")
        #expect(kept("a=1; Domain=WWW.Example.COM", from: "www.example.com") == "www.example.com")
    }

    @Test("host-only and domain cookies: who receives them")
    func hostOnlyAndDomain() {
        var store = store()
        store.receive("host=1", from: target("www.example.com"), at: now)
        store.receive("wide=1; Domain=example.com", from: target("www.example.com"), at: now)
        #expect(sent(&store, to: "www.example.com") == ["host=1", "wide=1"])
        #expect(sent(&store, to: "a.www.example.com") == ["wide=1"])
        #expect(sent(&store, to: "example.com") == ["wide=1"])
        #expect(sent(&store, to: "badexample.com") == [])
    }

    @Test("topLevelOnly consults no list: co.uk is accepted, com is not; custom rules decide alone")
    func otherPolicies() {
        #expect(kept("a=1; Domain=co.uk", from: "a.co.uk", in: .topLevelOnly) == "co.uk")
        #expect(kept("a=1; Domain=com", from: "a.com", in: .topLevelOnly) == nil)
        let asked = PublicSuffixes.custom { $0 == "corp.example" }
        #expect(kept("a=1; Domain=.Corp.Example", from: "a.corp.example", in: asked) == nil)
        #expect(kept("a=1; Domain=corp", from: "a.corp", in: asked) == "corp", "a single label, allowed by the rule")
    }

    @Test("the __Host- prefix refuses any Domain attribute, even one that leaves the cookie host-only")
    func hostPrefix() {
        #expect(kept("__Host-a=1; Secure; Path=/; Domain=github.io", from: "github.io") == nil)
        #expect(kept("__Host-a=1; Secure; Path=/", from: "github.io") == "github.io H")
    }

    @Test(
        "the jar's default is the bundled list: co.uk, github.io and herokuapp.com are refused",
        .enabled(if: PublicSuffixList.bundled.count > 1000, "needs the generated list"))
    func bundledByDefault() {
        let jar = CookieJar(now: { [now] in now })
        for (domain, host) in [
            ("co.uk", "a.co.uk"), ("github.io", "ann.github.io"), ("herokuapp.com", "x.herokuapp.com"),
        ] {
            jar.storeCookies(
                from: try! HTTPHeaderFields([(name: "Set-Cookie", value: "a=1; Domain=" + domain)]),
                for: URL(string: "https://\(host)/")!)
        }
        #expect(jar.allCookies.isEmpty)
    }
}

extension CookieDomainRulesTests {
    @Test(
        "a host whose last label is a number is an IPv4 address to a URL parser: never suffix-matched",
        arguments: ["1.2.3.4", "10.1", "5.1.2", "x.2.3.4.5", "0x7f.1", "a.0X1F", "a.0x", "1.2.3.4.", "::1", "fe80::1"])
    func endsInANumber(host: String) {
        #expect(CookieMatching.isIPAddress(host))
        #expect(!CookieMatching.domain("a." + host, matches: host) || host.contains(":"))
    }

    @Test("names that end in a label of letters are names", arguments: ["localhost", "a.x0", "1.2.3.a", "0xg", "a.b."])
    func names(host: String) {
        #expect(!CookieMatching.isIPAddress(host))
    }
}

import Foundation
import Testing
import NetCore

@Suite("Public suffixes: the list's algorithm, its test vectors, and the bundled list")
struct PublicSuffixListTests {
    /// Rules of this test's own, in the list's format: plain, wildcard and exception rules, and an IDN rule in its
    /// A-label form.
    static let rules = PublicSuffixList(
        rules: """
            // comments and blank lines are skipped

            com
            uk
            co.uk
            jp
            kyoto.jp
            ide.kyoto.jp
            *.kobe.jp
            !city.kobe.jp
            *.ck
            !www.ck
            io
            github.io   trailing text after the rule is ignored
            cn
            xn--55qx5d.cn
            """)

    @Test(
        "the registrable domain: the public suffix and one label more",
        arguments: [
            ("example.com", "example.com"), ("a.b.example.com", "example.com"), ("com", nil),
            ("example.co.uk", "example.co.uk"), ("co.uk", nil), ("www.example.co.uk", "example.co.uk"),
            ("c.kobe.jp", nil), ("b.c.kobe.jp", "b.c.kobe.jp"), ("city.kobe.jp", "city.kobe.jp"),
            ("www.city.kobe.jp", "city.kobe.jp"), ("ide.kyoto.jp", nil), ("a.b.ide.kyoto.jp", "b.ide.kyoto.jp"),
            ("test.ck", nil), ("b.test.ck", "b.test.ck"), ("www.ck", "www.ck"), ("www.www.ck", "www.ck"),
            ("github.io", nil), ("ann.github.io", "ann.github.io"), ("x.ann.github.io", "ann.github.io"),
            ("xn--55qx5d.cn", nil), ("xn--85x722f.xn--55qx5d.cn", "xn--85x722f.xn--55qx5d.cn"),
            ("unlisted", nil), ("example.unlisted", "example.unlisted"),
            ("example.com.", "example.com"), (".example.com", nil), ("a..com", nil), ("", nil),
        ] as [(String, String?)])
    func registrableDomain(host: String, expected: String?) {
        #expect(Self.rules.registrableDomain(of: host) == expected)
    }

    @Test("public suffixes: listed, under a wildcard, unlisted top-level names, a trailing dot ignored")
    func publicSuffixes() {
        for suffix in ["com", "co.uk", "test.ck", "github.io", "xn--55qx5d.cn", "localhost", "com.", "a..b", ""] {
            #expect(Self.rules.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.com", "www.ck", "city.kobe.jp", "ann.github.io", "example.com."] {
            #expect(!Self.rules.isPublicSuffix(domain), "\(domain)")
        }
        #expect(PublicSuffixList.empty.isPublicSuffix("com") && !PublicSuffixList.empty.isPublicSuffix("co.uk"))
        #expect(Self.rules.count == 14)
    }

    @Test("a host is compared as bytes: a look-alike of a listed name is another name")
    func lookAlikes() {
        #expect(Self.rules.registrableDomain(of: "a.co.u\u{212A}") == "co.u\u{212A}")
        #expect(Self.rules.registrableDomain(of: "a.github.\u{131}o") == "github.\u{131}o")
    }

    @Test("PublicSuffixes folds ASCII case and ignores a leading and a trailing dot; custom rules are asked as such")
    func publicSuffixesValue() {
        let list = PublicSuffixes.list(Self.rules)
        #expect(list.isPublicSuffix("CO.UK") && list.isPublicSuffix(".co.uk.") && !list.isPublicSuffix("A.co.uk"))
        #expect(
            PublicSuffixes.topLevelOnly.isPublicSuffix("com") && !PublicSuffixes.topLevelOnly.isPublicSuffix("co.uk"))
        let custom = PublicSuffixes.custom { $0 == "intranet.example" }
        #expect(custom.isPublicSuffix(".Intranet.Example.") && !custom.isPublicSuffix("com"))
    }

    @Test("punycode, as the generator writes IDN rules (RFC 3492 §7.1 and the list's own names)")
    func punycode() {
        #expect(Punycode.asciiName("公司.cn") == "xn--55qx5d.cn")
        #expect(Punycode.asciiName("食狮.中国") == "xn--85x722f.xn--fiqs8s")
        #expect(Punycode.encode("ليهمابتكلموشعربي؟") == "egbpdaj6bu4bxfgehfvwxn")
        #expect(Punycode.asciiName("München.DE") == "xn--mnchen-3ya.de")
    }

    // MARK: The list's own test vectors

    /// `checkPublicSuffix('input', 'expected')` lines of `test_psl.txt`, non-ASCII names in their A-label form
    /// (hosts reach the jar as A-labels only); `null` input lines are left out.
    static let vectors: [(host: String, registrable: String?)] = PublicSuffixTestVectors.text.split(separator: "\n")
        .compactMap { line -> (String, String?)? in
            guard line.hasPrefix("checkPublicSuffix(") else { return nil }
            let arguments = line.dropFirst("checkPublicSuffix(".count).prefix { $0 != ")" }
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard arguments.count == 2, arguments[0] != "null" else { return nil }
            let unquoted = { (text: String) in String(text.dropFirst().dropLast()) }
            return (
                Punycode.asciiName(unquoted(arguments[0])),
                arguments[1] == "null" ? nil : Punycode.asciiName(unquoted(arguments[1]))
            )
        }

    @Test("every test vector of the list (test_psl.txt) against the bundled list")
    func vectorsAgainstTheBundledList() {
        #expect(Self.vectors.count >= 75)
        for (host, expected) in Self.vectors {
            #expect(PublicSuffixList.bundled.registrableDomain(of: host) == expected, "\(host)")
        }
    }

    @Test("the bundled list holds both sections, wildcards, exceptions and IDN rules as A-labels")
    func bundledList() {
        let bundled = PublicSuffixes.bundled
        for suffix in ["com", "co.uk", "github.io", "herokuapp.com", "test.ck", "xn--55qx5d.cn", "xn--fiqs8s"] {
            #expect(bundled.isPublicSuffix(suffix), "\(suffix)")
        }
        #expect(!bundled.isPublicSuffix("www.ck") && !bundled.isPublicSuffix("example.co.uk"))
        #expect(PublicSuffixList.bundled.count > 10_000)
    }

    @Test("the bundled list parses into every rule, and once")
    func parsing() {
        let list = PublicSuffixList.bundledRules.withUTF8Buffer { PublicSuffixList(utf8: $0) }
        #expect(list.count == PublicSuffixList.bundled.count)
    }
}

import Foundation
import Testing
import NetCore

@Suite("Set-Cookie parsing and cookie dates (RFC 6265 §5.1.1, §5.2)")
struct SetCookieParserTests {
    @Test("name and value up to the first ';', trimmed; attributes in any case, the last valid one wins")
    func nameValueAndAttributes() throws {
        let cookie = try #require(
            SetCookieParser.parse(
                " sid = a b=c ; path=/docs; PATH=/api; Secure; HTTPONLY; samesite=lax; Domain=.Example.COM; Max-Age=60; max-age=x"
            ))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a b=c")
        #expect(cookie.path == "/api")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.domain == "example.com")
        #expect(cookie.maxAge == 60, "an invalid Max-Age is ignored, the valid one before it stays")
    }

    @Test(
        "fields RFC 6265 ignores entirely",
        arguments: [
            "novalue", "=value", "  =v; Path=/", "a\u{01}b=1", "a=1\u{7F}", "", ";a=1",
            String(repeating: "n", count: 2000) + "=" + String(repeating: "v", count: 2097),
        ])
    func ignored(field: String) {
        #expect(SetCookieParser.parse(field) == nil)
    }

    @Test("an empty value, a tab inside the value, and a value of 4096 bytes with its name are kept")
    func kept() throws {
        #expect(try #require(SetCookieParser.parse("a=")).value == "")
        #expect(try #require(SetCookieParser.parse("a=x\ty")).value == "x\ty")
        let long = "n=" + String(repeating: "v", count: 4095)
        #expect(SetCookieParser.parse(long)?.value.count == 4095)
    }

    @Test("attribute values it cannot use are ignored")
    func unusableAttributes() throws {
        let cookie = try #require(
            SetCookieParser.parse(
                "a=1; Path=relative; Domain=; Max-Age=1.5; Max-Age=+3; Expires=tomorrow; SameSite=Sometimes; Frobnicate=yes"
            ))
        #expect(cookie.path == nil)
        #expect(cookie.domain == nil)
        #expect(cookie.maxAge == nil)
        #expect(cookie.expires == nil)
        #expect(cookie.sameSite == nil)
        let long = try #require(SetCookieParser.parse("a=1; Path=/" + String(repeating: "p", count: 1024)))
        #expect(long.path == nil, "an attribute value past 1024 bytes is ignored")
        #expect(SetCookieParser.parse("a=1; SameSite=None")?.sameSite == .noRestriction)
        #expect(SetCookieParser.parse("a=1; SameSite=STRICT")?.sameSite == .strict)
    }

    @Test("Max-Age: negative and zero are kept for deletion; past Int's range it saturates")
    func maxAge() {
        #expect(SetCookieParser.parse("a=1; Max-Age=0")?.maxAge == 0)
        #expect(SetCookieParser.parse("a=1; Max-Age=-5")?.maxAge == -5)
        #expect(SetCookieParser.parse("a=1; Max-Age=99999999999999999999999")?.maxAge == Int.max)
        #expect(SetCookieParser.parse("a=1; Max-Age=-99999999999999999999999")?.maxAge == Int.min)
    }

    static let october21 = Date(timeIntervalSince1970: 1_445_412_480)  // 2015-10-21 07:28:00 UTC

    @Test(
        "cookie-date accepts the shapes servers send",
        arguments: [
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed Oct 21 07:28:00 2015",
            "21 october 2015 7:28:0",
            "Wed, 21-Oct-2015 07:28:00 UTC",
            "2015 Oct 21 07:28:00xyz",
        ])
    func cookieDates(text: String) {
        #expect(CookieDate.parse(text) == Self.october21)
    }

    @Test("two-digit years: 70-99 are 19xx, 00-69 are 20xx")
    func twoDigitYears() {
        #expect(CookieDate.parse("01 Jan 70 00:00:00") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("01 Jan 69 00:00:00") == Date(timeIntervalSince1970: 3_124_224_000))  // 2069-01-01
        #expect(CookieDate.parse("29 Feb 2024 00:00:00") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test(
        "dates that are not dates",
        arguments: [
            "", "Wed, 21 Oct 2015", "21 Oct 2015 24:00:00", "21 Oct 2015 07:60:00", "32 Oct 2015 07:28:00",
            "30 Feb 2016 07:28:00", "29 Feb 2015 07:28:00", "21 Oct 1600 07:28:00", "21 Foo 2015 07:28:00",
            "121 Oct 2015 07:28:00", "21 Oct 2015 107:28:00",
        ])
    func notDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test("Expires is parsed into the field")
    func expiresAttribute() {
        #expect(SetCookieParser.parse("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT")?.expires == Self.october21)
    }
}

import Foundation
import Testing
import NetCore

/// HTTP-dates read strictly (RFC 9110 §5.6.7): the three forms a recipient must accept, and the near misses that
/// are not dates (the cases of the http-tests cache-tests suite's `Expires` parsing, and more).
@Suite("HTTP-date: the three forms, strictly (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    /// 2050-08-18 02:01:18 UTC.
    static let august2050 = Date(timeIntervalSince1970: 2_544_400_878)
    static let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    @Test(
        "accepted: IMF-fixdate, RFC 850, asctime, names in any case, optional whitespace around",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 GMT",
            "Thursday, 18-Aug-50 02:01:18 GMT",
            "Thu Aug 18 02:01:18 2050",
            "THU, 18 Aug 2050 02:01:18 GMT",
            "Thu, 18 AUG 2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02:01:18 gMT",
            " Thu, 18 Aug 2050 02:01:18 GMT\t",
        ])
    func accepted(_ text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == Self.august2050)
    }

    @Test(
        "not dates: other zones, two-digit years outside RFC 850, missing comma, doubled spaces, dashes, periods, a one-digit hour, impossible days",
        arguments: [
            "Thu, 18 Aug 2050 02:01:18 UTC",
            "Thu, 18 Aug 2050 02:01:18 AEST",
            "Thu, 18 Aug 2050 02:01:18 +0000",
            "Thu, 18 Aug 50 02:01:18 GMT",
            "Thu 18 Aug 2050 02:01:18 GMT",
            "Thu, 18  Aug  2050 02:01:18 GMT",
            "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT",
            "Thu, 18 Aug 2050 2:01:18 GMT",
            "Thu, 30 Feb 2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 24:01:18 GMT",
            "Thu, 18 Aug 2050 02:01:18 GMT x",
            "Thu, 18 Aug 2050 02:01:18",
            "0",
            "",
            "Thursday, 18 Aug 2050 02:01:18 GMT",
            "Thu Aug 8 02:01:18 2050",
        ])
    func rejected(_ text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
    }

    @Test("asctime pads a one-digit day with a space")
    func asctimeDay() {
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("RFC 850's two-digit year is the nearest that is not more than 50 years ahead")
    func twoDigitYears() throws {
        let may2026 = Date(timeIntervalSince1970: 1_779_000_000)
        let year2076 = try #require(HTTPDate.parse("Wednesday, 01-Jan-76 00:00:00 GMT", now: may2026))
        #expect(year2076 == Date(timeIntervalSince1970: 3_345_062_400), "2076 is exactly 50 years ahead")
        let year1977 = try #require(HTTPDate.parse("Saturday, 01-Jan-77 00:00:00 GMT", now: may2026))
        #expect(year1977 == Date(timeIntervalSince1970: 220_924_800), "2077 would be 51 years ahead")
    }

    @Test("a leap second counts as the second before; 29 February only in leap years")
    func calendarEdges() {
        #expect(
            HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT")
                == HTTPDate.parse("Sat, 31 Dec 2016 23:59:59 GMT"))
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(HTTPDate.parse("Fri, 29 Feb 2023 00:00:00 GMT") == nil)
    }
}

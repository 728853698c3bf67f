#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Expires` date of a `Set-Cookie` (RFC 6265 §5.1.1): tolerant of the many shapes servers send
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, `Wednesday, 21-Oct-15 07:28:00 GMT`, `Wed Oct 21 07:28:00 2015`), always UTC.
package enum CookieDate {
    /// The date `text` names, or `nil` when it names none (then the attribute is ignored).
    package static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(of: Array(text.utf8)) {
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = parseMonth(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            day <= HTTPDate.daysIn(month: month, year: year)
        else { return nil }
        let days = HTTPDate.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The runs of non-delimiter bytes (§5.1.1: delimiters are HTAB, `0x20-0x2F`, `0x3B-0x40`, `0x5B-0x60`,
    /// `0x7B-0x7E`).
    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// 1 or 2 digits at `index`, with the index after them; `nil` for none or for 3.
    private static func field(_ token: ArraySlice<UInt8>, at index: Int) -> (value: Int, end: Int)? {
        var end = index
        var value = 0
        while end < token.endIndex, isDigit(token[end]), end - index < 3 {
            value = value * 10 + Int(token[end] - UInt8(ascii: "0"))
            end += 1
        }
        guard (1...2).contains(end - index) else { return nil }
        return (value, end)
    }

    /// `hms-time ( non-digit *OCTET )`: `07:28:00`.
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        guard let hour = field(token, at: token.startIndex), hour.end < token.endIndex,
            token[hour.end] == UInt8(ascii: ":"),
            let minute = field(token, at: hour.end + 1), minute.end < token.endIndex,
            token[minute.end] == UInt8(ascii: ":"),
            let second = field(token, at: minute.end + 1)
        else { return nil }
        return (hour.value, minute.value, second.value)
    }

    /// `n*mDIGIT ( non-digit *OCTET )`: a number of that many digits, perhaps followed by other bytes.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        let count = token.prefix { isDigit($0) }.count
        guard digits.contains(count) else { return nil }
        return token.prefix(count).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static let months: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .map { Array($0.utf8) }

    /// A token whose first three letters name a month (any case): `Oct`, `October`.
    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let first = token.prefix(3).map { $0 | 0x20 }
        return months.firstIndex(of: first).map { $0 + 1 }
    }
}

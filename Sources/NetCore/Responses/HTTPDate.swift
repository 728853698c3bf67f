#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP-date (RFC 9110 §5.6.7) as `Date`, `Expires`, `Last-Modified` and `Retry-After` carry it, read strictly
/// and as bytes: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms every recipient must
/// accept, RFC 850's (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime's (`Sun Nov  6 08:49:37 1994`).
///
/// Anything else is not a date: another zone (`UTC`, `+0000`), a two-digit year outside RFC 850's form, dashes in
/// IMF-fixdate, doubled spaces, a one-digit hour. Day and month names are compared without regard to case (what
/// the browsers do). The lenient reading of `Set-Cookie`'s `Expires` is ``CookieDate``'s, not this one's.
package enum HTTPDate {
    /// The date `text` names, or `nil` when it is not an HTTP-date. `now` places RFC 850's two-digit years: one that
    /// would be more than 50 years ahead of it is the most recent past year with those two digits (§5.6.7).
    package static func parse(_ text: some StringProtocol, now: Date = Date()) -> Date? {
        var bytes = Array(text.utf8)[...]
        // Optional whitespace around a field value is not part of it.
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        if let date = imfFixdate(bytes) ?? asctime(bytes) { return date }
        return rfc850(bytes, now: now)
    }

    // MARK: The three forms

    /// `day-name "," SP 2DIGIT SP month SP 4DIGIT SP hh:mm:ss SP "GMT"`.
    private static func imfFixdate(_ bytes: ArraySlice<UInt8>) -> Date? {
        var reader = Reader(bytes)
        guard reader.name(in: shortDays) != nil, reader.take(","), reader.take(" "),
            let day = reader.digits(2), reader.take(" "), let month = reader.name(in: monthNames), reader.take(" "),
            let year = reader.digits(4), reader.take(" "), let time = reader.time(), reader.take(" "),
            reader.gmt(), reader.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP hh:mm:ss SP "GMT"`.
    private static func rfc850(_ bytes: ArraySlice<UInt8>, now: Date) -> Date? {
        var reader = Reader(bytes)
        guard reader.name(in: longDays) != nil, reader.take(","), reader.take(" "),
            let day = reader.digits(2), reader.take("-"), let month = reader.name(in: monthNames), reader.take("-"),
            let shortYear = reader.digits(2), reader.take(" "), let time = reader.time(), reader.take(" "),
            reader.gmt(), reader.isAtEnd
        else { return nil }
        let thisYear = civil(daysSince1970: Int((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = thisYear - thisYear % 100 + shortYear
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `day-name SP month SP ( 2DIGIT / SP 1DIGIT ) SP hh:mm:ss SP 4DIGIT`.
    private static func asctime(_ bytes: ArraySlice<UInt8>) -> Date? {
        var reader = Reader(bytes)
        guard reader.name(in: shortDays) != nil, reader.take(" "), let month = reader.name(in: monthNames),
            reader.take(" ")
        else { return nil }
        let day: Int
        if reader.take(" ") {
            guard let single = reader.digits(1) else { return nil }
            day = single
        } else {
            guard let double = reader.digits(2) else { return nil }
            day = double
        }
        guard reader.take(" "), let time = reader.time(), reader.take(" "), let year = reader.digits(4),
            reader.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// The instant of a checked calendar date and time of day, UTC; `nil` for a day the month lacks or a time out
    /// of range (a leap second, `:60`, counts as the second before).
    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard day >= 1, day <= daysIn(month: month, year: year), time.hour <= 23, time.minute <= 59,
            time.second <= 60
        else { return nil }
        let seconds =
            daysSince1970(year: year, month: month, day: day) * 86_400 + time.hour * 3_600
            + time.minute * 60 + min(time.second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    // MARK: Calendar arithmetic (proleptic Gregorian, shared with CookieDate)

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date (days-from-civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (civil-from-days).
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Reads an HTTP-date's parts off the front of its bytes.
    private struct Reader {
        private var bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        var isAtEnd: Bool { bytes.isEmpty }

        /// Takes `character` if it comes next.
        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard bytes.first == UInt8(ascii: character) else { return false }
            bytes.removeFirst()
            return true
        }

        /// Exactly `count` digits, as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count >= count else { return nil }
            var value = 0
            for byte in bytes.prefix(count) {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            bytes.removeFirst(count)
            return value
        }

        /// The index in `names` of the name that comes next, compared without regard to ASCII case.
        mutating func name(in names: [String]) -> Int? {
            for (index, name) in names.enumerated() {
                let count = name.utf8.count
                guard bytes.count >= count,
                    zip(bytes.prefix(count), name.utf8).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
                else { continue }
                // A longer run of letters is another word (`Sunday` where `Sun` is asked for).
                if let next = bytes.dropFirst(count).first, next | 0x20 >= UInt8(ascii: "a"),
                    next | 0x20 <= UInt8(ascii: "z")
                {
                    continue
                }
                bytes.removeFirst(count)
                return index
            }
            return nil
        }

        /// `2DIGIT ":" 2DIGIT ":" 2DIGIT`.
        mutating func time() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2) else {
                return nil
            }
            return (hour, minute, second)
        }

        /// `GMT`, in any case.
        mutating func gmt() -> Bool { name(in: ["GMT"]) == 0 }
    }
}

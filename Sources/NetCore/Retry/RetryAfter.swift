import Foundation  // DateFormatter (HTTP dates): not in FoundationEssentials

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
package enum RetryAfter {
    /// The seconds to wait that `value` asks for, or `nil` when it is malformed; a date in the past gives 0.
    package static func seconds(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return TimeInterval(trimmed) ?? .infinity
        }
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                return max(0, date.timeIntervalSince(now))
            }
        }
        return nil
    }

    /// IMF-fixdate first, then the two obsolete forms RFC 9110 §5.6.7 says recipients must accept.
    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]
}

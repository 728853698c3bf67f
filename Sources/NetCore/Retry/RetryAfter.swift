#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
package enum RetryAfter {
    /// The seconds to wait that `value` asks for, or `nil` when it is malformed; a date in the past gives 0.
    package static func seconds(from value: String, now: Date) -> TimeInterval? {
        let trimmed = CacheControl.trimmed(Substring(value))
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return TimeInterval(trimmed) ?? .infinity
        }
        return HTTPDate.parse(trimmed, now: now).map { max(0, $0.timeIntervalSince(now)) }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long a stored response stays fresh and how old it is (RFC 9111 §4.2), worked out from its head and the
/// times it was asked for and received; the current time is always given, never read here.
///
/// The freshness lifetime is `max-age` (`s-maxage` is for shared caches only), or else `Expires` minus `Date`
/// (an `Expires` that is not a date, such as `0`, means already stale). A response with neither gets no heuristic
/// lifetime: it is stale from the start and used only after a validation the server answers with 304, which is
/// always correct and costs one round trip without a body.
package struct CacheFreshness: Sendable, Equatable {
    /// Seconds the response stays fresh after it was generated.
    package let lifetime: Double
    /// The response's age when it was received (the corrected initial age of §4.2.3), in seconds.
    package let initialAge: Double
    /// When the response was received.
    package let responseTime: Date

    /// The freshness of a response with `head`, whose request went out at `requestTime` and whose head came back
    /// at `responseTime`.
    package init(head: HTTPResponseHead, requestTime: Date, responseTime: Date) {
        let fields = head.headerFields
        let date = fields.value(for: "Date").flatMap(CookieDate.parse) ?? responseTime
        let control = CacheControl(fields)
        if let maxAge = control.maxAge {
            lifetime = Double(maxAge)
        } else if let expires = fields.value(for: "Expires") {
            lifetime = CookieDate.parse(expires).map { max(0, $0.timeIntervalSince(date)) } ?? 0
        } else {
            lifetime = 0
        }
        // §4.2.3: the age the response already had, corrected for the clock of its server and the time in transit.
        let ageValue =
            fields.value(for: "Age").flatMap { CacheControl.deltaSeconds(CacheControl.trimmed(Substring($0))) } ?? 0
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, Double(ageValue) + responseDelay)
        self.responseTime = responseTime
    }

    /// The response's age at `now`, in seconds (never negative, even if the clock went back).
    package func age(at now: Date) -> Double {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Seconds of freshness left at `now`: negative once stale (by how much).
    package func remaining(at now: Date) -> Double {
        lifetime - age(at: now)
    }

    /// Whether the response is fresh at `now`.
    package func isFresh(at now: Date) -> Bool {
        remaining(at: now) > 0
    }
}

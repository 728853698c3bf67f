#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The response cache's decisions (RFC 9111), pure: which requests it takes part in, whether a stored response may
/// be used as it is, how to validate one, and which responses it may store.
package enum CachePolicy {
    /// What the cache may do with a stored response for a request.
    package enum Use: Sendable, Equatable {
        /// Hand it out without asking the server; it is this old, in seconds.
        case serve(age: Double)
        /// Ask the server first (conditionally, when the response has a validator).
        case validate
    }

    /// Request fields that make a request conditional or partial: such a request is the caller's own business and
    /// passes the cache by, since a stored 200 is not what it asks for.
    private static let conditionalFields = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// Whether the cache answers and stores `request`: a `GET` without a body that is not conditional or partial,
    /// and whose `Cache-Control` does not say `no-store`.
    package static func takesPart(_ request: TransportRequest) -> Bool {
        guard request.method == .get, request.body == nil else { return false }
        let fields = request.head.headerFields
        guard !conditionalFields.contains(where: fields.contains) else { return false }
        return !CacheControl(fields, isRequest: true).noStore
    }

    /// Whether a response to a request of `method` with `status` makes the stored responses of its target stale
    /// (§4.4): a success or redirect of a method that is not safe.
    package static func invalidates(method: HTTPMethod, status: Int) -> Bool {
        guard ![.get, .head, .options, .trace].contains(method) else { return false }
        return (200..<400).contains(status)
    }

    /// The targets whose stored responses a response to `request` that ``invalidates(method:status:)`` makes stale
    /// (§4.4): the request's own, and the URLs its `Location` and `Content-Location` name (relative ones resolved
    /// against the request's) when they have the request's origin; a URL of another origin is left alone, so that
    /// one server cannot clear what another served.
    package static func invalidatedTargets(of request: HTTPRequestHead, response: HTTPResponseHead)
        -> [HTTPRequestHead]
    {
        var targets = [request]
        let origin = HTTPOrigin(request)
        for name in ["Location", "Content-Location"] {
            guard let value = response.headerFields.value(for: name), !value.isEmpty,
                let base = request.url, let url = URL(string: value, relativeTo: base)?.absoluteURL,
                let head = try? HTTPRequestHead(method: .get, url: url), HTTPOrigin(head) == origin,
                !targets.contains(where: { CacheKey($0, method: .get) == CacheKey(head, method: .get) })
            else { continue }
            targets.append(head)
        }
        return targets
    }

    /// Whether `stored` may be handed out at `now` for a request with `request`'s directives (§4.2, §5.2.1):
    /// fresh, young enough for `max-age`, fresh enough for `min-fresh`, or stale within `max-stale` when the
    /// response allows that (no `must-revalidate`); never without validation when either side says `no-cache`.
    package static func use(_ stored: CachedResponse, request: CacheControl, at now: Date) -> Use {
        let response = CacheControl(stored.head.headerFields)
        if response.noCache || request.noCache { return .validate }
        let age = stored.freshness.age(at: now)
        let remaining = stored.freshness.remaining(at: now)
        if let maxAge = request.maxAge, age > Double(maxAge) { return .validate }
        if let minFresh = request.minFresh, remaining < Double(minFresh) { return .validate }
        if remaining > 0 { return .serve(age: age) }
        if !response.mustRevalidate, let maxStale = request.maxStale, -remaining <= Double(maxStale) {
            return .serve(age: age)
        }
        return .validate
    }

    /// `request` made conditional on `stored` (§4.3.1): `If-None-Match` with its entity tag, `If-Modified-Since`
    /// with its `Last-Modified` date; `nil` when the response has neither (it can only be fetched again).
    package static func validation(of request: TransportRequest, for stored: CachedResponse) -> TransportRequest? {
        guard stored.hasValidator else { return nil }
        var request = request
        // Both values come from a header field the transport accepted: they are valid field values.
        if let tag = stored.entityTag {
            request.head.headerFields.set(HTTPHeaderField(uncheckedName: "If-None-Match", value: tag))
        }
        if let date = stored.lastModified {
            request.head.headerFields.set(HTTPHeaderField(uncheckedName: "If-Modified-Since", value: date))
        }
        return request
    }

    /// Whether a 304 with `head` validates `stored` (§4.3.4): it names the same entity tag (weakly compared), or
    /// none; a 304 that names another tag is about some other response.
    package static func validates(_ head: HTTPResponseHead, _ stored: CachedResponse) -> Bool {
        guard let tag = head.headerFields.value(for: "ETag") else { return true }
        guard let storedTag = stored.entityTag else { return false }
        return weakTag(tag) == weakTag(storedTag)
    }

    /// An entity tag without its weakness flag (`W/"x"` → `"x"`), trimmed.
    private static func weakTag(_ tag: String) -> Substring {
        let tag = CacheControl.trimmed(Substring(tag))
        return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }

    /// Statuses whose responses the cache stores: the successes `send` reads whole and a later request may be
    /// answered with (§3 allows more; these are the ones the engine reads whole and serves again).
    private static let storableStatuses: Set<Int> = [200, 203, 204]

    /// Whether a response may be stored and is worth storing (§3): a complete 200, 203 or 204 to a request whose
    /// `Cache-Control` lacks `no-store`, itself without `no-store`, without `Vary: *`, and either fresh for a
    /// while or able to be validated. `private` does not stop it: NetKit's cache is private.
    package static func stores(
        _ head: HTTPResponseHead,
        isComplete: Bool,
        request: CacheControl,
        requestTime: Date,
        responseTime: Date
    ) -> Bool {
        guard isComplete, storableStatuses.contains(head.statusCode), !request.noStore else { return false }
        let fields = head.headerFields
        let control = CacheControl(fields)
        guard !control.noStore, CachedResponse.varyNames(fields) != nil else { return false }
        if fields.contains("ETag") || fields.contains("Last-Modified") { return true }
        // Without a validator, a response that must be validated before each use could never be used.
        return !control.noCache
            && CacheFreshness(head: head, requestTime: requestTime, responseTime: responseTime).lifetime > 0
    }
}

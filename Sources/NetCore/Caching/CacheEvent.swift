/// Something the response cache did for one request, as ``RequestMetrics/cacheEvents`` records it and
/// ``LoggingPlugin`` and the metrics bridge report it.
///
/// Each pass of a request through the cache records one answer (``hit``, ``servedStale(_:)``, ``revalidated``,
/// ``miss`` or ``unavailable``), then what became of the server's response when one came back (``stored`` or
/// ``notStored(_:)``); a successful request of a method that is not safe records ``invalidated``. A request that
/// is retried or redirected passes through the cache again and records again, in order.
public enum CacheEvent: Sendable, Equatable, Hashable {
    /// A fresh stored response answered without the network.
    case hit
    /// Nothing stored could answer as it was: the request went to the server, and the server's answer (or its
    /// failure) is what the caller got. A stored response validated with a conditional request that the server
    /// answered with a full response is a miss too.
    case miss
    /// A stored response was validated by a 304 and answered with the 304's header fields; its freshness starts
    /// again.
    case revalidated
    /// A stale stored response answered, for the reason given.
    case servedStale(StaleReason)
    /// The server's response was stored.
    case stored
    /// The server's response was not stored, for the reason given; for a success, what was stored for the
    /// request was removed too, since the new response superseded it.
    case notStored(NotStoredReason)
    /// A successful (2xx or 3xx) response to a method that is not safe (`POST`, `PUT`, `PROPFIND` …) removed what
    /// was stored for its URL and for the same-origin URLs its `Location` and `Content-Location` name (RFC 9111
    /// §4.4); recorded whether anything was stored there or not.
    case invalidated
    /// The request said `only-if-cached` and nothing stored could answer: it got a 504 without the network (RFC
    /// 9111 §5.2.1.7).
    case unavailable

    /// A fixed word for the kind of event, for metrics dimensions and structured logs: `hit`, `miss`,
    /// `revalidated`, `stale`, `stored`, `not_stored`, `invalidated` or `unavailable`. Never a URL.
    public var name: String {
        switch self {
        case .hit: "hit"
        case .miss: "miss"
        case .revalidated: "revalidated"
        case .servedStale: "stale"
        case .stored: "stored"
        case .notStored: "not_stored"
        case .invalidated: "invalidated"
        case .unavailable: "unavailable"
        }
    }

    /// The fixed word of the event's reason (``StaleReason/name``, ``NotStoredReason/name``); `nil` for an event
    /// that has none.
    public var reasonName: String? {
        switch self {
        case .servedStale(let reason): reason.name
        case .notStored(let reason): reason.name
        case .hit, .miss, .revalidated, .stored, .invalidated, .unavailable: nil
        }
    }
}

extension CacheEvent: CustomStringConvertible {
    /// The event as a log line carries it: `hit`, `served stale: stale-while-revalidate`, `not stored: no-store`.
    public var description: String {
        switch self {
        case .servedStale(let reason): "served stale: \(reason)"
        case .notStored(let reason): "not stored: \(reason)"
        case .hit, .miss, .revalidated, .stored, .invalidated, .unavailable: name
        }
    }
}

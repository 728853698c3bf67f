extension CacheEvent {
    /// Why a stale stored response answered (``CacheEvent/servedStale(_:)``).
    public enum StaleReason: Sendable, Equatable, Hashable, CaseIterable {
        /// Within the response's `stale-while-revalidate` window (RFC 5861 §3): it answered at once, and one
        /// validation went to the server in the background, after this request.
        case staleWhileRevalidate
        /// Within a `stale-if-error` window (RFC 5861 §4, the response's or the request's): the server answered
        /// 500, 502, 503 or 504.
        case staleIfErrorStatus
        /// Within a `stale-if-error` window: the server could not be reached (a refused, reset or lost connection,
        /// a timeout; never a TLS failure).
        case staleIfErrorConnection
        /// Within the request's `max-stale` (RFC 9111 §5.2.1.2).
        case maxStale

        /// A fixed word for metrics dimensions and structured logs: `while_revalidate`, `error_status`,
        /// `connection_failure` or `max_stale`.
        public var name: String {
            switch self {
            case .staleWhileRevalidate: "while_revalidate"
            case .staleIfErrorStatus: "error_status"
            case .staleIfErrorConnection: "connection_failure"
            case .maxStale: "max_stale"
            }
        }
    }
}

extension CacheEvent.StaleReason: CustomStringConvertible {
    /// The reason as a log line carries it: `stale-while-revalidate`, `stale-if-error on an error status`,
    /// `stale-if-error on a failed connection`, `max-stale`.
    public var description: String {
        switch self {
        case .staleWhileRevalidate: "stale-while-revalidate"
        case .staleIfErrorStatus: "stale-if-error on an error status"
        case .staleIfErrorConnection: "stale-if-error on a failed connection"
        case .maxStale: "max-stale"
        }
    }
}

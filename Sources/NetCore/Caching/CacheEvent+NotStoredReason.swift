extension CacheEvent {
    /// Why the server's response was not stored (``CacheEvent/notStored(_:)``): the first rule of RFC 9111 §3 it
    /// did not meet, in the order the cache checks them.
    public enum NotStoredReason: Sendable, Equatable, Hashable, CaseIterable {
        /// The body did not arrive whole (it was cut at a limit).
        case incomplete
        /// Its status is never stored: an interim (1xx), partial (206) or not-modified (304) response only
        /// completes another one.
        case status
        /// The request or the response said `no-store`.
        case noStore
        /// The response said `must-understand` with a status whose caching rules the cache does not know
        /// (§5.2.2.3).
        case mustUnderstand
        /// The response's `Vary` is `*`: no later request could be known to match it.
        case varyAsterisk
        /// Its status is stored only with explicit freshness (`max-age`, `Expires`) or `public`/`private`, and it
        /// had none (a 500 or a 201 without them, say).
        case statusNeedsExplicitFreshness
        /// It says `no-cache` and has no validator (`ETag`, `Last-Modified`): it would have to be validated before
        /// every use and could not be.
        case noCacheWithoutValidator
        /// It is stale at once (no lifetime, no `stale-while-revalidate` or `stale-if-error` window) and has no
        /// validator: it could never answer.
        case noFreshnessOrValidator
        /// It is larger than the cache's whole bound (``ResponseCache/maximumBytes``).
        case tooLarge

        /// A fixed word for metrics dimensions and structured logs: `incomplete`, `status`, `no_store`,
        /// `must_understand`, `vary_star`, `needs_freshness`, `no_cache_no_validator`, `no_freshness_no_validator`
        /// or `too_large`.
        public var name: String {
            switch self {
            case .incomplete: "incomplete"
            case .status: "status"
            case .noStore: "no_store"
            case .mustUnderstand: "must_understand"
            case .varyAsterisk: "vary_star"
            case .statusNeedsExplicitFreshness: "needs_freshness"
            case .noCacheWithoutValidator: "no_cache_no_validator"
            case .noFreshnessOrValidator: "no_freshness_no_validator"
            case .tooLarge: "too_large"
            }
        }
    }
}

extension CacheEvent.NotStoredReason: CustomStringConvertible {
    /// The reason as a log line carries it: `no-store`, `Vary: *`, `larger than the cache` ….
    public var description: String {
        switch self {
        case .incomplete: "incomplete body"
        case .status: "a status never stored"
        case .noStore: "no-store"
        case .mustUnderstand: "must-understand with an unknown status"
        case .varyAsterisk: "Vary: *"
        case .statusNeedsExplicitFreshness: "no explicit freshness for its status"
        case .noCacheWithoutValidator: "no-cache without a validator"
        case .noFreshnessOrValidator: "no freshness and no validator"
        case .tooLarge: "larger than the cache"
        }
    }
}

extension RequestEvent {
    /// The phases of a request NetKit reports. None carries a credential, a path or a query: an origin (scheme, host
    /// and port: `https://api.example.com:8443`) is the most of a URL an event names, and a reason is the error's own
    /// description, as the caller would see it.
    public enum Kind: Sendable, Equatable {
        // The call.

        /// The engine began the request: `method` to `origin`. The first event of every request.
        case callStart(method: HTTPRequestMethod, origin: HTTPOrigin)
        /// The request succeeded with a response of `status` (for `stream`, its body is handed over unread). Ends the call.
        case callEnd(status: Int)
        /// The request failed; `reason` describes the error the caller gets. Ends the call.
        case callFailed(reason: String)
        /// The caller cancelled the request; ``callFailed(reason:)`` follows.
        case cancelled

        // Waiting.

        /// The request waits: in a held line (``HoldTheLine``) before its credential is read, or, inside an attempt, for
        /// one of its host's request slots (``RequestExecutor/Configuration/maximumRequestsPerHost``).
        case queued
        /// The wait ended: the line opened or a slot came free, or the request was cancelled or timed out waiting.
        case dequeued

        // Attempts.

        /// Attempt number `attempt` (from 1) begins, for `reason`.
        case attemptStart(attempt: Int, reason: PluginContext.Reason)
        /// The request is handed to the transport (or, for a cached request, the cache answers in its place).
        case requestStart
        /// The transport sent the request line and header fields (see ``TransportRequest/onSent``; a transport
        /// that cannot see its writes tells it no later than the response head).
        case requestHeadSent
        /// The transport sent the last of the request body: `bytes` bytes in all.
        case requestBodySent(bytes: Int64)
        /// The connection closed or was reset before any response came, and the engine sends the attempt once more on
        /// its own (a safe request whose body can be sent again: see ``RequestExecutor/Configuration``'s transparent
        /// retry); `reason` describes the failure. Another ``requestStart`` follows. It does not count against the
        /// request's retry policy.
        case transparentRetry(reason: String)
        /// The head of a response of `status` arrived. Its time is when the transport says it arrived
        /// (``TransportResponse/headReceivedAt``), or when the exchange last told what it sent if that came later
        /// (events keep their time order); a head from the cache or a shared call, when the engine took it.
        case responseHead(status: Int)
        /// The response body was read to its end: `bytes` bytes. `stream`'s body is the caller's to read, after the
        /// call ended: it has no such event.
        case responseBodyEnd(bytes: Int64)
        /// Attempt `attempt` got a response of `status` (whatever the engine then judges of it). Ends the attempt.
        case attemptEnd(attempt: Int, status: Int)
        /// Attempt `attempt` got no response: `reason` describes why. Ends the attempt.
        case attemptFailed(attempt: Int, reason: String)

        // What the engine decided between attempts.

        /// The retry policy will send the request again after `wait`, because of `reason` (the failure's description).
        case retryScheduled(wait: Duration, reason: String)
        /// The retry policy would have sent the request again, but the retry budget of `origin` is spent
        /// (``RetryBudget``): the request fails with its own error.
        case retryBudgetExhausted(origin: HTTPOrigin)
        /// A redirect of `status` is followed to `origin` (see ``RedirectPolicy``).
        case redirect(status: Int, origin: HTTPOrigin)
        /// The credential was rejected and is being renewed (or a renewal in flight is joined).
        case credentialRenewalStart
        /// The renewal ended: `renewed` when there is a new credential to resend with.
        case credentialRenewalEnd(renewed: Bool)

        // The response cache and coalescing (see ``CacheEvent``).

        /// A fresh stored response answered without the network.
        case cacheHit
        /// Nothing stored could answer: the request went to the server.
        case cacheMiss
        /// A stored response was validated by a 304 and answered.
        case cacheRevalidated
        /// A stale stored response answered, for `reason`.
        case cacheServedStale(CacheEvent.StaleReason)
        /// `only-if-cached` and nothing stored could answer: a 504 without the network.
        case cacheUnavailable
        /// The server's response was stored.
        case cacheStored
        /// The server's response was not stored, for `reason`.
        case cacheNotStored(CacheEvent.NotStoredReason)
        /// A successful unsafe method removed what was stored for its URL.
        case cacheInvalidated
        /// An identical request already in flight is sending this one's call: its response is shared
        /// (``RequestExecutor/Configuration/coalescesIdenticalRequests``).
        case coalesced

        /// A fixed word for the kind, for logs, metrics dimensions and span event names: `call_start`, `attempt_end`,
        /// `cache_hit` … Never a URL or a reason.
        public var name: String {
            switch self {
            case .callStart: "call_start"
            case .callEnd: "call_end"
            case .callFailed: "call_failed"
            case .cancelled: "cancelled"
            case .queued: "queued"
            case .dequeued: "dequeued"
            case .attemptStart: "attempt_start"
            case .requestStart: "request_start"
            case .requestHeadSent: "request_head_sent"
            case .requestBodySent: "request_body_sent"
            case .transparentRetry: "transparent_retry"
            case .responseHead: "response_head"
            case .responseBodyEnd: "response_body_end"
            case .attemptEnd: "attempt_end"
            case .attemptFailed: "attempt_failed"
            case .retryScheduled: "retry_scheduled"
            case .retryBudgetExhausted: "retry_budget_exhausted"
            case .redirect: "redirect"
            case .credentialRenewalStart: "credential_renewal_start"
            case .credentialRenewalEnd: "credential_renewal_end"
            case .cacheHit: "cache_hit"
            case .cacheMiss: "cache_miss"
            case .cacheRevalidated: "cache_revalidated"
            case .cacheServedStale: "cache_served_stale"
            case .cacheUnavailable: "cache_unavailable"
            case .cacheStored: "cache_stored"
            case .cacheNotStored: "cache_not_stored"
            case .cacheInvalidated: "cache_invalidated"
            case .coalesced: "coalesced"
            }
        }

        /// The kind of a ``CacheEvent``.
        init(_ event: CacheEvent) {
            switch event {
            case .hit: self = .cacheHit
            case .miss: self = .cacheMiss
            case .revalidated: self = .cacheRevalidated
            case .servedStale(let reason): self = .cacheServedStale(reason)
            case .unavailable: self = .cacheUnavailable
            case .stored: self = .cacheStored
            case .notStored(let reason): self = .cacheNotStored(reason)
            case .invalidated: self = .cacheInvalidated
            }
        }
    }
}

extension RequestEvent.Kind: CustomStringConvertible {
    /// The kind as a log line or a waterfall shows it: `call_start GET https://api.example.com`,
    /// `retry_scheduled 1.5 seconds: HTTP 503`.
    public var description: String {
        switch self {
        case .callStart(let method, let origin): "\(name) \(method) \(origin)"
        case .callEnd(let status), .responseHead(let status): "\(name) \(status)"
        case .callFailed(let reason): "\(name): \(reason)"
        case .attemptStart(let attempt, let reason): "\(name) \(attempt) (\(reason))"
        case .responseBodyEnd(let bytes), .requestBodySent(let bytes): "\(name) \(bytes) bytes"
        case .attemptEnd(let attempt, let status): "\(name) \(attempt): \(status)"
        case .attemptFailed(let attempt, let reason): "\(name) \(attempt): \(reason)"
        case .transparentRetry(let reason): "\(name): \(reason)"
        case .retryScheduled(let wait, let reason): "\(name) \(wait): \(reason)"
        case .retryBudgetExhausted(let origin): "\(name) \(origin)"
        case .redirect(let status, let origin): "\(name) \(status) to \(origin)"
        case .credentialRenewalEnd(let renewed): "\(name) \(renewed ? "renewed" : "not renewed")"
        case .cacheServedStale(let reason): "\(name): \(reason)"
        case .cacheNotStored(let reason): "\(name): \(reason)"
        case .cancelled, .queued, .dequeued, .requestStart, .requestHeadSent, .credentialRenewalStart, .cacheHit,
            .cacheMiss,
            .cacheRevalidated, .cacheUnavailable, .cacheStored, .cacheInvalidated, .coalesced:
            name
        }
    }
}

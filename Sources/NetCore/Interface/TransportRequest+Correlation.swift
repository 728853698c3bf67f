extension TransportRequest {
    /// Marks the header field `name` as a correlation field of this request: one that tells the request apart for
    /// tracing and logs only (a request ID, trace context), not for what the server answers.
    ///
    /// When the engine coalesces identical `GET` and `HEAD` requests in flight
    /// (``RequestExecutor/Configuration/coalescesIdenticalRequests``), requests that differ only in correlation fields still share
    /// one call. The call goes out with the values of the request that started it; every caller's plugins are still
    /// given that caller's own request, with its own values. Mark the header a plugin of yours sets per request:
    ///
    /// ```swift
    /// func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
    ///     var request = request
    ///     try request.setHeader("X-Correlation-ID", UUID().uuidString)
    ///     request.markCorrelationHeader("X-Correlation-ID")
    ///     return request
    /// }
    /// ```
    ///
    /// W3C trace context (`traceparent`, `tracestate`, `baggage`), B3's fields (`b3`, `X-B3-TraceId`,
    /// `X-B3-SpanId`, `X-B3-ParentSpanId`, `X-B3-Sampled`, `X-B3-Flags`) and `X-Request-ID` count without being
    /// marked; ``RequestIDPlugin`` marks its header, NetTracing's `TransportRequestInjector` every field it writes. A
    /// field that carries a credential (``credentialFields``) never counts, marked or not: requests with different
    /// credentials never share a call.
    public mutating func markCorrelationHeader(_ name: String) {
        correlationHeaderNames.insert(HeaderValidation.lowercased(name))
    }

    /// Whether the header field `name` is a correlation field of this request: a standard one or a marked one, and
    /// not a credential.
    package func isCorrelationHeader(_ name: String) -> Bool {
        let lowered = HeaderValidation.lowercased(name)
        guard Self.standardCorrelationHeaderNames.contains(lowered) || correlationHeaderNames.contains(lowered) else {
            return false
        }
        return !credentialFields.containsHeader(name)
    }

    /// The correlation fields every request has without marking them, lowercased.
    static let standardCorrelationHeaderNames: Set<String> = [
        "traceparent", "tracestate", "baggage",
        "b3", "x-b3-traceid", "x-b3-spanid", "x-b3-parentspanid", "x-b3-sampled", "x-b3-flags",
        "x-request-id",
    ]
}

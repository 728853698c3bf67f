#if Tracing
import NetCore
import Tracing

/// Writes a tracer's propagation headers (W3C `traceparent` and `tracestate` for an OpenTelemetry tracer) into a
/// request's header fields, for `tracer.inject(_:into:using:)`.
///
/// ``TracingPlugin`` uses it before each attempt; a plugin of your own can too:
///
/// ```swift
/// InstrumentationSystem.tracer.inject(context, into: &request, using: TransportRequestInjector())
/// ```
public struct TransportRequestInjector: Injector {
    /// Creates the injector.
    public init() {}

    /// Sets header `key` to `value`, replacing an earlier value, and marks it as a correlation field
    /// (``NetCore/TransportRequest/markCorrelationHeader(_:)``), so that trace context does not stop identical
    /// requests in flight from sharing one call. A value the wire cannot carry (CR or LF in it) is left out rather
    /// than sent: a broken trace header must not fail the request.
    public func inject(_ value: String, forKey key: String, into request: inout TransportRequest) {
        try? request.setHeader(key, value)
        request.markCorrelationHeader(key)
    }
}
#endif

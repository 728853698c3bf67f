#if Tracing
import NetCore
import Tracing

/// Traces every request on swift-distributed-tracing: a client span for the request and a child client span for
/// each attempt, with OpenTelemetry's HTTP client attributes, the attempt's trace context in the request's headers
/// (W3C `traceparent` with an OpenTelemetry tracer), and failures recorded.
///
/// ```swift
/// import NetCore
/// import NetTracing
/// import Tracing
///
/// let tracing = TracingPlugin()  // InstrumentationSystem.tracer
/// let executor = RequestExecutor(transport: transport, plugins: [tracing])
/// ```
///
/// The request span starts in `prepare` as a child of the caller's `ServiceContext.current` (task-local: the
/// engine runs plugin hooks in the caller's task, or in a child task of it when the request has a timeout, and
/// both see the caller's context) and ends once, in `didFinish` (for a `stream`, when its response head arrives).
/// An attempt span starts in `willSend` and ends when its response arrives (`didReceive`), when the next attempt
/// starts, or when the request ends. Both are named after the method (`GET`), or the operation when the request
/// names one (``NetCore/TransportRequest/operationID``), and carry:
///
/// | attribute | value |
/// | --- | --- |
/// | `http.request.method` | `GET` |
/// | `url.full` | `https://api.example.com/v1/todos?state=…`: query values hidden as ``rules`` say, and those of the query items the request declares as credentials (a `TokenPlugin`'s) always |
/// | `url.scheme` | `https` |
/// | `server.address` | `api.example.com` |
/// | `server.port` | `443` (the scheme's port when the URL names none) |
/// | `http.response.status_code` | `200`, once a response arrived (the request span: the last one) |
/// | `http.request.resend_count` | `1`, `2`… on the attempts after the first (the request span: on its last) |
/// | `error.type` | the status code (`500`) for a status of 400 or more, else the error's type (`TransportError`, `CancellationError`); an attempt that got no response and was tried again: `_OTHER` |
/// | `netkit.operation_id` | the operation, when set |
/// | `netkit.cache_events` | the request span only, when the response cache took part: what it did, in order (``NetCore/RequestMetrics/cacheEvents`` as their descriptions: `["miss", "stored"]`, `["hit"]`) |
///
/// A span with `error.type` has status error; the request span also records the error, as a ``RedactedError`` so
/// that no exporter writes out a URL or a header. No header value ever becomes an attribute.
///
/// Each phase of the request (``NetCore/RequestEvent``) is a span event on the request span, named
/// `netkit.` and the event's ``NetCore/RequestEvent/Kind/name`` (`netkit.attempt_start`, `netkit.response_head`,
/// `netkit.retry_scheduled` …), with what the event says as attributes: `netkit.attempt`,
/// `http.response.status_code`, `netkit.bytes`, `netkit.wait_ms`, `netkit.origin` (scheme, host and port only).
/// A reason (an error's description) is not an attribute: the recorded error says it, redacted.
public struct TracingPlugin: RequestObserver {
    /// Where spans are started and contexts injected.
    public let tracer: any Tracer
    /// Which query values `url.full` hides (all of them by default).
    public let rules: RedactionRules
    /// The spans of the requests in flight, from `prepare` to `didFinish`.
    private let ledger = RequestLedger<Trace>()

    /// One request's spans.
    private struct Trace: Sendable {
        var request: any Span
        var attempt: (any Span)?
        var name: String
        var lastStatus: Int?
        var resends = 0
    }

    /// Creates the plugin.
    /// - Parameters:
    ///   - tracer: Where spans go; by default the one `InstrumentationSystem.bootstrap` installed.
    ///   - rules: Which query values `url.full` hides (see ``NetCore/RedactionRules``).
    public init(tracer: any Tracer = InstrumentationSystem.tracer, rules: RedactionRules = .standard) {
        self.tracer = tracer
        self.rules = rules
    }

    /// Runs after the other plugins, so that the spans describe the request as they left it and the trace headers
    /// are the last ones set.
    public var priority: PluginPriority { .low }

    /// The number of requests whose spans this plugin (and its copies) holds: 0 once every request has ended.
    package var requestsInFlight: Int { ledger.count }

    /// Starts the request span under the caller's context.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        let name = request.operationID ?? request.method.rawValue
        let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.updateAttributes { attributes in describe(request, in: &attributes) }
        ledger.open(context.requestNumber, Trace(request: span, name: name))
        return request
    }

    /// Ends the previous attempt's span if it is still open, starts this attempt's and puts its context in the
    /// request's headers.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        let resends = max(0, context.attempt - 1)
        guard
            let (parent, previous, name) = ledger.update(
                context.requestNumber,
                { trace in
                    defer {
                        trace.attempt = nil
                        trace.resends = resends
                    }
                    return (trace.request.context, trace.attempt, trace.name)
                })
        else { return }
        if let previous {
            // The engine tries again only after a failure; one without a response does not reach plugins.
            previous.updateAttributes { $0["error.type"] = "_OTHER" }
            previous.setStatus(SpanStatus(code: .error))
            previous.end()
        }
        let span = tracer.startSpan(name, context: parent, ofKind: .client)
        let sent = request
        span.updateAttributes { attributes in
            describe(sent, in: &attributes)
            if resends > 0 { attributes["http.request.resend_count"] = resends }
        }
        tracer.inject(span.context, into: &request, using: TransportRequestInjector())
        ledger.update(context.requestNumber) { $0.attempt = span }
    }

    /// Ends the attempt's span with the response's status.
    public func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
        let status = response.statusCode
        let span = ledger.update(context.requestNumber) { trace in
            defer { trace.attempt = nil }
            trace.lastStatus = status
            return trace.attempt
        }
        guard let span = span ?? nil else { return }
        Self.end(span, status: status, error: nil)
    }

    /// Ends the attempt's span if still open, then the request's, with the outcome.
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async {
        guard let trace = ledger.close(context.requestNumber) else { return }
        let error: (any Error)? =
            switch result {
            case .success: nil
            case .failure(let error): error
            }
        if let attempt = trace.attempt { Self.end(attempt, status: nil, error: error) }
        let status: Int? =
            switch result {
            case .success(let response): response.statusCode
            case .failure(let error) where error is CancellationError: nil
            case .failure: trace.lastStatus
            }
        if trace.resends > 0 { trace.request.updateAttributes { $0["http.request.resend_count"] = trace.resends } }
        if !metrics.cacheEvents.isEmpty {
            let events = metrics.cacheEvents.map(\.description)
            trace.request.updateAttributes { $0["netkit.cache_events"] = events }
        }
        if let error { trace.request.recordError(RedactedError(error)) }
        Self.end(trace.request, status: status, error: error)
    }

    /// Adds the event to the request span, once `prepare` has started it (every event but `call_start` comes after).
    public func observe(_ event: RequestEvent) {
        guard let span = ledger.entry(event.requestNumber)?.request else { return }
        var attributes = SpanAttributes()
        switch event.kind {
        case .attemptStart(let attempt, _): attributes["netkit.attempt"] = attempt
        case .attemptEnd(let attempt, let status):
            attributes["netkit.attempt"] = attempt
            attributes["http.response.status_code"] = status
        case .attemptFailed(let attempt, _): attributes["netkit.attempt"] = attempt
        case .responseHead(let status), .callEnd(let status): attributes["http.response.status_code"] = status
        case .responseBodyEnd(let bytes): attributes["netkit.bytes"] = Int(clamping: bytes)
        case .retryScheduled(let wait, _): attributes["netkit.wait_ms"] = Int(wait / .milliseconds(1))
        case .redirect(let status, let origin):
            attributes["http.response.status_code"] = status
            attributes["netkit.origin"] = origin.description
        case .retryBudgetExhausted(let origin): attributes["netkit.origin"] = origin.description
        default: break
        }
        span.addEvent(SpanEvent(name: "netkit.\(event.kind.name)", attributes: attributes))
    }

    /// The attributes every span of `request` carries.
    private func describe(_ request: TransportRequest, in attributes: inout SpanAttributes) {
        let head = request.head
        attributes["http.request.method"] = request.method.rawValue
        attributes["url.full"] = LogRedaction.target(head, rules: rules.including(request.credentialFields))
        attributes["url.scheme"] = head.scheme
        attributes["server.address"] = head.host
        if let port = head.port ?? Self.defaultPort(of: head.scheme) { attributes["server.port"] = port }
        if let operation = request.operationID { attributes["netkit.operation_id"] = operation }
    }

    /// Sets the status attributes and the span's status, and ends it.
    private static func end(_ span: any Span, status: Int?, error: (any Error)?) {
        let failed = (status ?? 0) >= 400 || error != nil
        span.updateAttributes { attributes in
            if let status { attributes["http.response.status_code"] = status }
            if let status, status >= 400 {
                attributes["error.type"] = "\(status)"
            } else if let error {
                attributes["error.type"] = String(describing: type(of: error))
            }
        }
        if failed { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }

    /// 443 for `https` and `wss`, 80 for `http` and `ws`.
    static func defaultPort(of scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "https", "wss": 443
        case "http", "ws": 80
        default: nil
        }
    }
}

extension TracingPlugin: SelectivePlugin {
    /// Every hook but `verify` and `wasCancelled` (a cancelled request's `didFinish` says all), and the events.
    package var hooks: PluginHooks { [.prepare, .willSend, .didReceive, .didSucceed, .didFail, .observe] }
}
#endif

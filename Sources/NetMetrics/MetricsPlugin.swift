#if Metrics
import CoreMetrics
import NetCore

/// Counts and times every request on swift-metrics: requests by method, host and status class, their duration,
/// retries, credential refreshes, body bytes, how many are in flight, and what the response cache did.
///
/// ```swift
/// import CoreMetrics
/// import NetCore
/// import NetMetrics
///
/// let metrics = MetricsPlugin()  // MetricsSystem.factory, names prefixed "netkit"
/// let executor = RequestExecutor(transport: transport, plugins: [metrics])
/// ```
///
/// | name (prefix `netkit`) | type | dimensions | what |
/// | --- | --- | --- | --- |
/// | `netkit_http_client_requests_total` | counter | method, host, status_class | requests ended |
/// | `netkit_http_client_request_duration` | timer | method, host, status_class | from start to end, retries and waits included |
/// | `netkit_http_client_retries_total` | counter | method, host | attempts after the first that a retry policy or a plugin asked for |
/// | `netkit_http_client_credential_refreshes_total` | counter | method, host | resends after a 401 renewed the credential |
/// | `netkit_http_client_redirects_total` | counter | method, host | redirect hops the engine followed |
/// | `netkit_http_client_request_body_bytes_total` | counter | method, host | request body bytes sent, all attempts |
/// | `netkit_http_client_response_body_bytes_total` | counter | method, host | response body bytes read, all attempts |
/// | `netkit_http_client_requests_in_flight` | meter | method, host | requests started and not yet ended |
/// | `netkit_http_client_cache_events_total` | counter | method, host, event, reason | what the response cache did (``NetCore/CacheEvent``), one per event of the request's ``NetCore/RequestMetrics/cacheEvents`` |
/// | `netkit_http_client_phase_duration` | timer | method, host, phase | each phase of each request, from its events (``NetCore/RequestEvent``): `queue` (waiting in a held line), `credential_renewal`, `attempt`, `request_body` (the request head sent until its body's last byte), `time_to_head` (handed to the transport until the response head), `body` (head until the body's end), `retry_wait` |
/// | `netkit_http_client_retry_budget_exhausted_total` | counter | method, host | retries the retry policy allowed and the retry budget refused (``NetCore/RetryBudget``) |
///
/// `event` is ``NetCore/CacheEvent/name``: `hit`, `miss`, `revalidated`, `stale`, `stored`, `not_stored`,
/// `invalidated` or `unavailable`. `reason` is there only for `stale` and `not_stored`, a fixed word
/// (``NetCore/CacheEvent/reasonName``): `while_revalidate`, `error_status`, `connection_failure`, `max_stale`;
/// `incomplete`, `status`, `no_store`, `must_understand`, `vary_star`, `needs_freshness`, `no_cache_no_validator`,
/// `no_freshness_no_validator`, `too_large`. The background validation `stale-while-revalidate` starts ends after
/// its request, and is not counted.
///
/// Every metric also has the dimension `operation` when the request names one
/// (``NetCore/TransportRequest/operationID``, an OpenAPI `operationId`). `status_class` is `1xx`…`5xx` from the last
/// response that arrived (so a 200 whose body failed to decode is `2xx`), `error` when none arrived, `cancelled` when
/// the caller cancelled. No dimension ever holds a path or a query: they would multiply the series and may carry
/// secrets.
///
/// A request is in flight from this plugin's `prepare` to its `didFinish`: the gauge goes up once and down exactly
/// once, whether the request succeeds, fails or is cancelled; a `stream` ends when its response head has arrived.
/// The metrics are made through the factory as each request ends, so the factory's own caching decides their life.
public struct MetricsPlugin: RequestObserver {
    /// Where the metrics are made.
    public let factory: any MetricsFactory
    /// What every name begins with, followed by `_`.
    public let prefix: String
    /// The requests in flight, from `prepare` to `didFinish`.
    private let ledger = RequestLedger<Flight>()

    /// What the end of a request needs from its beginning.
    private struct Flight: Sendable {
        var dimensions: [(String, String)]
        var lastStatus: Int?
        var phases = RequestPhases()
    }

    /// Creates the plugin.
    /// - Parameters:
    ///   - factory: Where the metrics are made; by default the one `MetricsSystem.bootstrap` installed.
    ///   - prefix: What every name begins with (`netkit`: `netkit_http_client_requests_total`).
    public init(factory: any MetricsFactory = MetricsSystem.factory, prefix: String = "netkit") {
        self.factory = factory
        self.prefix = prefix
    }

    /// Runs after the other plugins, so it sees the request as they left it.
    public var priority: PluginPriority { .low }

    /// The number of requests this plugin (and its copies) sees in flight: 0 once every request has ended.
    package var requestsInFlight: Int { ledger.count }

    /// Counts the request in flight.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        let dimensions = Self.dimensions(of: request)
        ledger.open(context.requestNumber, Flight(dimensions: dimensions))
        Meter(label: name("requests_in_flight"), dimensions: dimensions, factory: factory).increment()
        return request
    }

    /// Counts retries, resends after a credential refresh, and redirects followed.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        let label: String
        switch context.reason {
        case .initial: return
        case .retry, .requestedByPlugin: label = name("retries_total")
        case .refreshedCredential: label = name("credential_refreshes_total")
        case .redirected: label = name("redirects_total")
        }
        let dimensions = ledger.update(context.requestNumber) { $0.dimensions } ?? Self.dimensions(of: request)
        Counter(label: label, dimensions: dimensions, factory: factory).increment()
    }

    /// Remembers the status of the last response.
    public func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
        ledger.update(context.requestNumber) { $0.lastStatus = response.statusCode }
    }

    /// Counts and times the request, adds its bytes and takes it out of flight.
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async {
        let flight = ledger.close(context.requestNumber)
        let dimensions = flight?.dimensions ?? Self.dimensions(of: request)
        if flight != nil {
            Meter(label: name("requests_in_flight"), dimensions: dimensions, factory: factory).decrement()
        }
        let statusClass = Self.statusClass(result, lastStatus: flight?.lastStatus)
        let ended = Self.inserting(("status_class", statusClass), into: dimensions)
        Counter(label: name("requests_total"), dimensions: ended, factory: factory).increment()
        Timer(label: name("request_duration"), dimensions: ended, factory: factory)
            .recordNanoseconds(Self.nanoseconds(metrics.duration))
        Counter(label: name("request_body_bytes_total"), dimensions: dimensions, factory: factory)
            .increment(by: metrics.bytesSent)
        Counter(label: name("response_body_bytes_total"), dimensions: dimensions, factory: factory)
            .increment(by: metrics.bytesReceived)
        for event in metrics.cacheEvents {
            var cached = Self.inserting(("event", event.name), into: dimensions)
            if let reason = event.reasonName { cached.insert(("reason", reason), at: min(3, cached.count)) }
            Counter(label: name("cache_events_total"), dimensions: cached, factory: factory).increment()
        }
    }

    /// Times each phase of the request as it ends, and counts retries the budget refused.
    public func observe(_ event: RequestEvent) {
        let ended = ledger.update(event.requestNumber) { flight in
            (flight.phases.take(event), flight.dimensions)
        }
        guard let (phase, dimensions) = ended else { return }
        if case .retryBudgetExhausted = event.kind {
            Counter(label: name("retry_budget_exhausted_total"), dimensions: dimensions, factory: factory).increment()
        }
        guard let phase else { return }
        Timer(
            label: name("phase_duration"),
            dimensions: Self.inserting(("phase", phase.phase.rawValue), into: dimensions),
            factory: factory
        ).recordNanoseconds(Self.nanoseconds(phase.duration))
    }

    /// `<prefix>_http_client_<metric>`.
    private func name(_ metric: String) -> String {
        "\(prefix)_http_client_\(metric)"
    }

    /// Method, host and, when set, operation: never the path or the query.
    static func dimensions(of request: TransportRequest) -> [(String, String)] {
        var dimensions = [("method", request.method.rawValue), ("host", request.head.host)]
        if let operation = request.operationID { dimensions.append(("operation", operation)) }
        return dimensions
    }

    /// `dimension` after method and host, before operation.
    static func inserting(_ dimension: (String, String), into dimensions: [(String, String)]) -> [(String, String)] {
        var dimensions = dimensions
        dimensions.insert(dimension, at: min(2, dimensions.count))
        return dimensions
    }

    /// `2xx` for a result whose last response was 2xx; `cancelled` and `error` when there was none to judge by.
    static func statusClass(_ result: Result<ReceivedResponse, any Error>, lastStatus: Int?) -> String {
        let status: Int?
        switch result {
        case .success(let response): status = response.statusCode
        case .failure(let error):
            if error is CancellationError { return "cancelled" }
            status = lastStatus
        }
        guard let status, (100..<600).contains(status) else { return "error" }
        return "\(status / 100)xx"
    }

    /// `duration` in whole nanoseconds, `Int64.max` past 292 years.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
extension MetricsPlugin: SelectivePlugin {
    /// Every hook but `verify` and `wasCancelled` (a cancelled request's `didFinish` says all), and the events.
    package var hooks: PluginHooks { [.prepare, .willSend, .didReceive, .didSucceed, .didFail, .observe] }
}
#endif

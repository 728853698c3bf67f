#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one request takes down the road besides itself: everything `send`, `stream` and `forward` decide
/// differently, so that the road itself is one function.
struct RoadPlan {
    /// The engine's plugins and the request's, in order with their hooks.
    var plugins: PluginList
    /// Bounds the whole exchange; `nil`: no bound.
    var timeout: Duration?
    /// The retries of transient failures; `nil`: none (a request that may not be repeated, or a stream).
    var retryPolicy: RetryPolicy?
    /// Whether an attempt whose connection closed before any response is sent once more by the engine alone (a
    /// request that may be repeated, whose body can be sent again: ``BodyStage/resendsUnanswered``).
    var resendsUnanswered: Bool
    /// The credential put on every attempt.
    var credentials: any CredentialProvider
    /// Whether a rejection renews the credential once and resends.
    var allowsRenewal: Bool
    /// The request's own reading of a failed status's body.
    var errorDecoder: CallerIsolated<((Data) -> (any Error)?)?>
    /// The error model a failed status's body is decoded as; `nil`: none.
    var errorModel: ServerErrorDecoding?
    /// How the body is delivered: collected (`send`), left unread after a 2xx (`stream`), or left unread whatever
    /// the status (`forward`).
    var body: BodyStage.Mode
    /// Keeps the request's credentials to the origins the scope allows.
    var credentialGuard: CredentialGuard
}

extension RequestExecutor {
    /// The one road of every request, `send`'s, `stream`'s and NetOpenAPI's `forward`'s: the stages, then the
    /// plugins' `didFinish` on success or the failure handling (`fail`, in RequestExecutor.swift) on any error.
    ///
    /// The callers differ only in `plan.body`, how the body is delivered: collected, it is decoded by `deliver`
    /// (whose error fails the request like any other); left unread, the response handed to `deliver` carries the
    /// request's timeout and idle timeout into its body (and, for ``BodyStage/Mode/handOver(limit:)``, the limit),
    /// and a failed status is handed over rather than thrown. `measures`: whether the caller wants the metrics; when
    /// neither it nor a plugin does, the request ends without them; they come back through `metrics`, not in a tuple
    /// with the value (see ``RoadReport``).
    nonisolated(nonsending) func takeRoad<Value>(
        _ request: TransportRequest,
        plan: RoadPlan,
        measures: Bool,
        metrics: inout RequestMetrics?,
        deliver: (_ response: TransportResponse, _ received: ReceivedResponse) throws -> Value
    ) async throws -> Value {
        let state = RequestState(isStreaming: !plan.body.collects, observers: plan.plugins.observers)
        // The origin from the head's two fields, not from the head: passing the head copied it whole (counted).
        state.emitCallStart(
            method: request.head.method,
            origin: HTTPOrigin(scheme: request.head.scheme, authority: request.head.authority))
        let road = stages(state: state, plan: plan)
        let exchange: Exchange
        let received: ReceivedResponse
        let value: Value
        do {
            do {
                exchange = try await road.run(request)
            } catch let failure as ResponseFailure
                where plan.body.handsOverFailures && failure.isStatusOnly
                && !Task.isCancelled
            {
                exchange = failure.exchange
            }
            received = exchange.received
            value = try deliver(delivered(exchange, plan: plan, state: state), received)
        } catch {
            throw await fail(request, with: error, state: state, plugins: plan.plugins)
        }
        request.progress?.markFinished()
        state.emit(.callEnd(status: received.head.statusCode))
        guard measures || plan.plugins.any(.didSucceed) else { return value }
        let finished = state.finish()
        for plugin in plan.plugins.taking(.didSucceed) {
            await plugin.didFinish(
                exchange.request, result: .success(received), metrics: finished, context: state.endContext)
        }
        metrics = finished
        return value
    }

    /// The response as the caller gets it: a body left unread is read after the road returns, so the request's
    /// timeout (the whole exchange) and idle timeout (each wait for a byte) go with it, and a handed-over body is
    /// bounded by its limit.
    private func delivered(_ exchange: Exchange, plan: RoadPlan, state: RequestState) -> TransportResponse {
        var response = exchange.response
        if case .collect = plan.body { return response }
        let timeouts = BodyTimeouts(
            deadline: plan.timeout.map { state.start + $0 }, idle: exchange.request.idleTimeout,
            host: exchange.request.head.host)
        switch plan.body {
        case .collect: break
        case .stream: response.body = response.body.bounded(by: timeouts)
        case .handOver(let limit): response.body = response.body.limited(to: limit).bounded(by: timeouts)
        }
        return response
    }

    /// The one road's stages, outermost first.
    func stages(state: RequestState, plan: RoadPlan) -> Road {
        var retry: RetryStage?
        if let retryPolicy = plan.retryPolicy, retryPolicy.maxRetryCount > 0 {
            retry = RetryStage(
                policy: retryPolicy, state: state, clock: configuration.clock, randomUnit: configuration.randomUnit,
                presentation: configuration.presentation, budget: configuration.retryBudget)
        }
        // The cache answers and stores on `send`'s road only (a stream's body is the caller's to read, once) but
        // invalidates on every road; coalescing is `send`'s. Both tell callers apart by transport and cookie jar too.
        let collects = plan.body.collects
        let cookieJar = configuration.cookieJar
        let redirectPolicy = configuration.redirectPolicy
        let statusCheck = StatusCheckStage(
            errorDecoder: plan.errorDecoder, errorModel: plan.errorModel, credentials: plan.credentials)
        return Road(
            deadline: plan.timeout.map { DeadlineStage(deadline: state.start + $0) },
            preparation: plan.plugins.any(.prepare) ? PreparationStage(plugins: plan.plugins, state: state) : nil,
            retry: retry,
            line: configuration.line,
            redirect: redirectPolicy.followsRedirects
                ? RedirectStage(policy: redirectPolicy, state: state, statusCheck: statusCheck) : nil,
            credential: CredentialStage(
                credentials: plan.credentials, allowsRenewal: plan.allowsRenewal, state: state,
                credentialGuard: plan.credentialGuard),
            statusCheck: statusCheck,
            attempt: PluginAttemptStage(plugins: plan.plugins, state: state),
            credentialGuard: plan.credentialGuard,
            cookies: cookieJar.map(CookieStage.init),
            cache: configuration.responseCache.map {
                CacheStage(cache: $0, state: state, transport: transport, cookieJar: cookieJar, stores: collects)
            },
            coalesce: collects
                ? configuration.coalescer.map {
                    CoalescingStage(coalescer: $0, state: state, transport: transport, cookieJar: cookieJar)
                } : nil,
            queue: configuration.requestQueue,
            body: BodyStage(
                mode: plan.body, state: state, credentials: plan.credentials,
                resendsUnanswered: plan.resendsUnanswered),
            transport: transport,
            state: state
        )
    }
}

extension BodyStage.Mode {
    /// Whether the body is read into memory on the road (`send`'s), rather than left for the caller to read.
    var collects: Bool {
        if case .collect = self { true } else { false }
    }

    /// Whether a failed status is handed over as the response rather than thrown (`forward`'s: its caller decodes
    /// the statuses it knows).
    var handsOverFailures: Bool {
        if case .handOver = self { true } else { false }
    }
}

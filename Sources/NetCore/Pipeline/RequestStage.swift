/// The rest of the road after a stage: the stages inside it, then the transport. It runs on the executor of the
/// stage that calls it (the generic one: ``Road/run(_:)`` hops there once for the whole road).
package typealias StageNext = nonisolated(nonsending) @Sendable (TransportRequest) async throws -> Exchange

/// One step of a request's road: the deadline, retries, the held line, the credential, the status check,
/// the plugins' per-attempt hooks, the body. A stage may change the request, call `next` more than once, or
/// turn the exchange into an error.
protocol RequestStage: Sendable {
    nonisolated(nonsending) func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange
}

/// The stages of one request around the transport, outermost first: the one road `send` and `stream` take.
///
/// ```
/// deadline ▶ prepare ▶ retry ▶ held line ▶ redirects ▶ credential ▶ [status check] ▶ plugins ▶ [credential scope] ▶ cookies ▶ cache ▶ coalesce ▶ [slot] ▶ [body] ▶ transport
/// ```
///
/// The road is a fixed sequence whose optional stages are absent rather than a list of stages: each stage calls the
/// next one directly (no existential box per stage, no array, no heap closure per request); a stage with nothing to
/// do for the request (no credential, no plugin hook) is passed over; the status check and the body, which only
/// act before or after the rest, are checks around it rather than stages of their own; and the road changes
/// executor once, when it is entered, rather than at every stage. That was most of what the engine cost per request.
package struct Road: Sendable {
    /// Ends the request with a timeout past its deadline.
    package var deadline: DeadlineStage?
    /// The plugins' `prepare`, once.
    var preparation: PreparationStage?
    /// Retries after transient failures.
    package var retry: RetryStage?
    /// Requests wait here while it is held (a refresh, a migration), before the credential is read.
    package var line: HoldTheLine?
    /// Follows redirects, each hop through every stage after it.
    package var redirect: RedirectStage? = nil
    /// The credential, renewed on 401.
    package var credential: CredentialStage
    /// A status that is not 2xx becomes an error.
    var statusCheck: StatusCheckStage
    /// The plugins' per-attempt hooks (and the attempt count).
    package var attempt: PluginAttemptStage
    /// Keeps each hop's credentials to the origins they were given for.
    var credentialGuard: CredentialGuard = .open
    /// Sends the cookie jar's cookies and keeps those responses set.
    package var cookies: CookieStage? = nil
    /// Answers and revalidates from the response cache, and stores what may be stored (`send`'s road); on every road,
    /// a successful method that is not safe invalidates.
    package var cache: CacheStage? = nil
    /// Lets identical requests in flight at once share one transport call (and so outlives any one caller).
    var coalesce: CoalescingStage? = nil
    /// Each attempt waits here for one of its origin's slots before it goes to the transport
    /// (``RequestExecutor/Configuration/maximumRequestsPerHost``); `nil`: no limit, and nothing to wait for.
    package var queue: RequestQueue? = nil
    /// Reads the body.
    package var body: BodyStage
    /// Where the request goes.
    package let transport: any HTTPTransport
    /// The request's shared state.
    package let state: RequestState

    private enum Step {
        case deadline, preparation, retry, line, redirect, credential, statusCheck, attempt, credentialScope, cookies
        case cache, coalesce, body
    }

    /// Sends `request` down the road, on the generic executor (the caller may be an actor, such as the main
    /// actor: the road never runs there).
    @concurrent
    package func run(_ request: TransportRequest) async throws -> Exchange {
        try await run(request, from: .deadline)
    }

    /// The road inside the cache stage: what a validation the cache sends takes, in the background too.
    nonisolated(nonsending) package func runInsideCache(_ request: TransportRequest) async throws -> Exchange {
        try await run(request, from: .coalesce)
    }

    /// The road from `step` on.
    nonisolated(nonsending) private func run(_ request: TransportRequest, from step: Step) async throws -> Exchange {
        switch step {
        case .deadline:
            if let deadline { return try await deadline.run(request) { try await self.run($0, from: .preparation) } }
            fallthrough
        case .preparation:
            if let preparation { return try await preparation.run(request) { try await self.run($0, from: .retry) } }
            fallthrough
        case .retry:
            if let retry { return try await retry.run(request) { try await self.run($0, from: .line) } }
            fallthrough
        case .line:
            if let line { try await toldWait { try await line.waitUntilOpen(onQueued: $0) } }
            fallthrough
        case .redirect:
            if let redirect { return try await redirect.run(request) { try await self.run($0, from: .credential) } }
            fallthrough
        case .credential:
            if !credential.passes(request) {
                return try await credential.run(request) { try await self.run($0, from: .statusCheck) }
            }
            fallthrough
        case .statusCheck:
            let exchange: Exchange
            if attempt.isEmpty, state.isObserved {
                // An attempt observed without attempt plugins is counted and its end told here, around the road
                // below it, rather than in a frame of its own under this one: it costs no frame more than one
                // nobody observes.
                let number = state.countAttempt(sending: request.bodyLength)
                do {
                    exchange = try await run(request, from: .credentialScope)
                } catch {
                    state.emitAttemptEnd(number, failure: error)
                    throw error
                }
                state.emitAttemptEnd(number, status: exchange.response.statusCode)
            } else {
                exchange = try await run(request, from: .attempt)
            }
            // A redirect is the redirect stage's to judge: it checks the one it does not follow. A 2xx passes without
            // the async call.
            if !exchange.response.head.isSuccess,
                redirect == nil || !RedirectStateMachine.isRedirect(exchange.response.head)
            {
                try await statusCheck.check(exchange)
            }
            return exchange
        case .attempt:
            if !attempt.isEmpty {
                return try await attempt.run(request) { try await self.run($0, from: .credentialScope) }
            }
            _ = state.countAttempt(sending: request.bodyLength)
            fallthrough
        case .credentialScope:
            var request = request
            credentialGuard.apply(to: &request)
            return try await run(request, from: .cookies)
        case .cookies:
            if let cookies { return try await cookies.run(request) { try await self.run($0, from: .cache) } }
            fallthrough
        case .cache:
            if let cache { return try await cache.run(request, road: self) }
            fallthrough
        case .coalesce:
            if let coalesce { return try await coalesce.run(request) { try await self.run($0, from: .body) } }
            fallthrough
        case .body:
            var request = request
            body.prepare(&request)
            if let settings = request.connection {
                // Read for this hop's URL (the proxy environment) and asked of the transport before anything goes
                // out: a setting it cannot apply fails the request rather than letting it leave with less.
                let resolved = try settings.resolved(for: request.url)
                if let refusal = transport.unsupportedSetting(in: resolved, for: request.head) { throw refusal }
                if case .environment = settings.proxy { request.connection = resolved }
            }
            // The slot is the attempt's: a transparent resend below keeps it, and it is given back however the step
            // ends. A `stream`'s body is read after the road, by its caller: its slot is free once the head is here.
            // Without a queue this is a nil check, no lock and no allocation.
            var slot: RequestQueue.Slot? = nil
            if let queue {
                slot = try await toldWait { try await queue.acquire(HTTPOrigin(request.head), onQueued: $0) }
            }
            defer { if let slot { queue?.release(slot) } }
            var resent = false
            while true {
                try Task.checkCancellation()
                state.beginExchange(of: &request)
                do {
                    let response: TransportResponse
                    do {
                        response = try await transport.send(request)
                    } catch let error as TransportError where !resent && body.resendsAfter(error) && !Task.isCancelled {
                        // Nothing of an answer came: the request is sent once more, outside the retry policy.
                        resent = true
                        state.recordTransparentRetry(
                            sending: request.bodyLength, because: error.located(at: request.head))
                        continue
                    }
                    // Whatever the transport read of such a body, another reader would have framed it differently.
                    try response.head.checkFraming(host: request.head.host)
                    state.recordHead(
                        at: response.headArrival, status: response.head.statusCode,
                        protocolVersion: response.protocolVersion)
                    var exchange = Exchange(request: request, response: response)
                    try await body.read(&exchange)
                    return exchange
                } catch {
                    // What the transport tells of this exchange from now on is not the request's.
                    state.endExchange()
                    // Every transport's failure says where: host and port, from the request it was sending.
                    if let error = error as? TransportError { throw error.located(at: request.head) }
                    throw error
                }
            }
        }
    }

    /// What `wait` returns (the held line's opening, a request slot), its wait told to observers and added to the
    /// metrics' ``RequestMetrics/queueWait``: `queued` when it parks the request (`wait` calls the closure it is given
    /// then), `dequeued` when it ends, however it ends (the line opened or a slot came free, a cancellation, a
    /// timeout).
    nonisolated(nonsending) private func toldWait<Value>(
        _ wait: (_ onQueued: () -> Void) async throws -> Value
    ) async throws -> Value {
        // The wait's start is kept in the state, not in a variable the closure would capture: a captured variable
        // is a box allocated on the task's stack each time the road runs.
        defer { state.endQueueWait() }
        return try await wait { state.beginQueueWait() }
    }
}

/// Lets identical `GET` and `HEAD` requests of `send` in flight at the same time share one transport call and
/// one body read (``RequestCoalescer``): each caller gets its own exchange (and decodes it itself), with its own
/// request in it.
///
/// It sits just above the body, inside the plugins, the credential and the cookies, so that "identical" means
/// the requests as they go out, header fields and credential included, through the same transport with the same
/// cookie jar, correlation fields aside (``CoalescingKey``). Callers that did not start the call see its head and
/// bytes in their own metrics and progress too.
///
/// Not a ``RequestStage``: the rest of the road it is given must outlive the caller that starts the call, since the
/// others may still be waiting when that one is cancelled.
struct CoalescingStage: Sendable {
    package let coalescer: RequestCoalescer
    package let state: RequestState
    /// The road's transport: copies of an engine over other transports share the registry, never a call.
    package let transport: any HTTPTransport
    /// The road's cookie jar.
    package let cookieJar: CookieJar?

    package init(coalescer: RequestCoalescer, state: RequestState, transport: any HTTPTransport, cookieJar: CookieJar?)
    {
        self.coalescer = coalescer
        self.state = state
        self.transport = transport
        self.cookieJar = cookieJar
    }

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: @escaping StageNext) async throws
        -> Exchange
    {
        let key = CoalescingKey(request) {
            CredentialPartition(request, transport: transport, cookieJar: cookieJar)
        }
        guard let key else { return try await next(request) }
        let (shared, started) = try await coalescer.run(key, request, call: next)
        var exchange = shared
        // The call went out with the starter's request: each caller's exchange names its own (the same fields, but
        // for correlation fields, whose values are the caller's own although the starter's went out).
        var own = request
        own.wholeBody = shared.request.wholeBody
        exchange.request = own
        if !started {
            state.emit(.coalesced)
            state.recordHead(
                at: shared.response.headArrival, status: shared.response.head.statusCode,
                protocolVersion: shared.response.protocolVersion)
            if let data = shared.data {
                state.recordReceived(data.count)
                request.progress?.reportReceived(Int64(data.count), of: Int64(data.count))
            }
        }
        return exchange
    }
}

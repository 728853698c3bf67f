/// Follows redirects: every hop decided here, the same on every transport (transports hand each `3xx` back).
///
/// It sits outside the credential and everything after it, so each hop goes through them like any attempt: the
/// credential is put on hops to origins the scope allows, plugins see each hop (``PluginContext/Reason/redirected(status:)``),
/// the cookie jar keeps each hop's `Set-Cookie`, and the cache files each response under the URL it came from. The
/// status check runs on the final response only: a `3xx` this stage may follow passes it, and one that becomes
/// the answer is checked here.
package struct RedirectStage: Sendable {
    package let policy: RedirectPolicy
    package let state: RequestState
    let statusCheck: StatusCheckStage

    /// The most bytes of a followed redirect's body read (and dropped) so its connection can serve the next hop; a
    /// longer body is cut, which closes its connection.
    static let drainLimit = 64 * 1024

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        var machine = RedirectStateMachine(policy: policy)
        var current = request
        while true {
            let exchange = try await next(current)
            let head = exchange.response.head
            switch machine.received(head, for: current) {
            case .deliver:
                return try await delivered(exchange, hops: machine.hops)
            case .fail(let error):
                await Self.drop(exchange)
                throw error
            case .propose(let hop):
                let decision = try await policy.decide?(hop) ?? .follow(hop.request)
                let following: TransportRequest
                switch decision {
                case .deliver:
                    return try await delivered(exchange, hops: machine.hops)
                case .refuse(let why):
                    await Self.drop(exchange)
                    throw RedirectError(
                        .refused(why), statusCode: head.statusCode, from: HTTPOrigin(current.head),
                        to: HTTPOrigin(hop.to))
                case .follow(let request):
                    following = request
                }
                let refusal = await refusal(of: following, after: hop, machine: &machine)
                await Self.drop(exchange)
                if let refusal { throw refusal }
                state.nextAttempt(because: .redirected(status: head.statusCode))
                state.emit(.redirect(status: head.statusCode, origin: HTTPOrigin(following.head)))
                current = following
            }
        }
    }

    /// Why `following` may not be sent, if it may not: the rules every hop obeys, then private addresses.
    nonisolated(nonsending) private func refusal(
        of following: TransportRequest, after hop: RedirectHop, machine: inout RedirectStateMachine
    ) async -> (any Error)? {
        if let error = machine.follow(following, after: hop) { return error }
        guard policy.refusesPrivateAddresses, await HostResolution.isPrivate(following.head.host) else { return nil }
        return RedirectError(
            .privateAddress(following.head.host), statusCode: hop.response.statusCode,
            from: HTTPOrigin(hop.from), to: HTTPOrigin(following.head))
    }

    /// `exchange` as the answer: named by the URL that answered when hops were followed, and, when it is a `3xx`
    /// (the status check let it pass for this stage to judge), checked now.
    nonisolated(nonsending) private func delivered(_ exchange: Exchange, hops: Int) async throws -> Exchange {
        var exchange = exchange
        if hops > 0, exchange.response.url == nil { exchange.response.url = exchange.request.head.url }
        if RedirectStateMachine.isRedirect(exchange.response.head) { try await statusCheck.check(exchange) }
        return exchange
    }

    /// Reads and drops what is left of a redirect's body while it stays small, so its connection can be used again.
    private static func drop(_ exchange: Exchange) async {
        guard exchange.data == nil else { return }
        _ = try? await exchange.response.body.collectPrefix(upTo: drainLimit)
    }
}

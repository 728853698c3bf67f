/// One request's renewal of a rejected credential, shared by the engine's ``CredentialStage`` and NetOpenAPI's
/// `TokenRefreshMiddleware`: send; when the answer is a rejection and the credential can be renewed, renew it once
/// (joining any renewal in flight, through the ``CredentialRecovery``) and send again; that answer is final.
///
/// The decisions are ``StateMachine``'s; this carries them out. `Answer` is whatever one attempt gives: the engine's
/// exchange (a rejection caught as a value), the middleware's response.
package enum RenewOnce {
    /// Sends with `attempt` (which puts the current credential on the request and sends it) and renews at most once.
    ///
    /// - Parameters:
    ///   - recovery: The single-flight renewal; `nil` when the request cannot be renewed (no recovery, a body that
    ///     cannot be sent again, a request that carries its own credential).
    ///   - attempt: One attempt with the credential current when it is called.
    ///   - isRejected: Whether an answer means the credential was rejected (the provider's ``CredentialProvider/isRejection(_:)``).
    ///   - willRenew: Called when a rejection is about to be renewed.
    ///   - didRenew: Called when that renewal ended: `true` when there is a new credential to resend with.
    ///   - willResend: Called after a renewal, before the resend.
    /// - Returns: The answer to deliver: an accepted one, a rejection that cannot be renewed, or the resend's.
    /// - Throws: What `attempt` throws; `CancellationError` when the renewal was cancelled; the renewal's own error
    ///   as a ``RefreshFailure``, so that no retry policy repeats it (the caller unwraps it where it hands errors out).
    nonisolated(nonsending) package static func send<Answer>(
        recovery: (any CredentialRecovery)?,
        attempt: () async throws -> Answer,
        isRejected: (Answer) -> Bool,
        willRenew: () -> Void = {},
        didRenew: (_ renewed: Bool) -> Void = { _ in },
        willResend: () -> Void = {}
    ) async throws -> Answer {
        var machine = StateMachine(canRenew: recovery != nil)
        while true {
            // Read before the credential is: a renewal that ends between the two is then not waited for again.
            let generation = await recovery?.generation() ?? 0
            let answer = try await attempt()
            let rejected = machine.mayRenew && isRejected(answer)
            guard let recovery, machine.answered(rejected: rejected) == .renew else { return answer }
            let ended: (result: StateMachine.RenewalResult, error: (any Error)?)
            willRenew()
            do {
                try await recovery.recover(fromUnauthorizedAt: generation)
                ended = (.renewed, nil)
            } catch is CancellationError {
                ended = (.cancelled, nil)
            } catch NetworkError.unauthorized {
                ended = (.rejectedInsideRenewal, nil)
            } catch {
                ended = (.failed, error)
            }
            didRenew(ended.result == .renewed)
            switch machine.renewalEnded(ended.result) {
            case .resend: willResend()
            case .deliverRejection: return answer
            case .cancel: throw CancellationError()
            case .fail: throw RefreshFailure(underlying: ended.error ?? CancellationError())
            }
        }
    }
}

/// Puts the credential on each attempt and, on a rejection (what the provider's ``CredentialProvider/isRejection(_:)``
/// says: 401 unless it says otherwise), renews it once (single-flight, shared with every other request of the
/// provider) and sends the request again with the new one: ``RenewOnce``, the routine NetOpenAPI's middleware runs too.
///
/// A request that carries its own `Authorization` header is sent as it is and not renewed, and so is one to an
/// origin the ``CredentialScope`` does not allow (a rejection there is not the credential's). A renewal failure
/// reaches the caller as it is, wrapped so that no retry policy repeats it.
package struct CredentialStage: RequestStage {
    package let credentials: any CredentialProvider
    package let allowsRenewal: Bool
    package let state: RequestState
    /// Which origins the credential may go to.
    package let credentialGuard: CredentialGuard
    /// EKNetwork's credential without an `accessToken`: there is never anything to put on a request.
    private let isTokenless: Bool

    package init(
        credentials: any CredentialProvider, allowsRenewal: Bool, state: RequestState,
        credentialGuard: CredentialGuard = .open
    ) {
        self.credentials = credentials
        self.allowsRenewal = allowsRenewal
        self.state = state
        self.credentialGuard = credentialGuard
        self.isTokenless =
            credentials is NoCredentials || (credentials as? BearerTokenCredentials)?.hasNoToken == true
    }

    /// Whether the stage has nothing to do for `request`: no credential to put on it, none to renew (EKNetwork's
    /// `accessToken` and `tokenRefresher` both left out, or the request's own `Authorization`).
    package func passes(_ request: TransportRequest) -> Bool {
        if isTokenless, credentials.recovery == nil { return true }
        let plan = plan(for: request)
        return !plan.authorizes && plan.recovery == nil
    }

    private func plan(for request: TransportRequest) -> (authorizes: Bool, recovery: (any CredentialRecovery)?) {
        guard credentialGuard.allows(scheme: request.head.scheme, authority: request.head.authority) else {
            return (false, nil)
        }
        let ownAuthorization = request.value(forHeader: "Authorization") != nil
        let recovery = ownAuthorization || !allowsRenewal || !request.isReplayable ? nil : credentials.recovery
        return (!ownAuthorization && !isTokenless, recovery)
    }

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        let (authorizes, recovery) = plan(for: request)
        // A rejection is caught as a value, so that the one renew-once routine NetOpenAPI's middleware also runs
        // judges it; any other failure goes on as it is.
        let answer: Result<Exchange, ResponseFailure> = try await RenewOnce.send(
            recovery: recovery,
            attempt: {
                var outgoing = request
                if authorizes { try await credentials.authorize(&outgoing) }
                do {
                    return .success(try await next(outgoing))
                } catch let failure as ResponseFailure where credentials.isRejection(failure.head) {
                    return .failure(failure)
                }
            },
            isRejected: { answer in
                if case .failure = answer { true } else { false }
            },
            willRenew: { state.emit(.credentialRenewalStart) },
            didRenew: { state.emit(.credentialRenewalEnd(renewed: $0)) },
            willResend: { state.nextAttempt(because: .refreshedCredential) }
        )
        return try answer.get()
    }
}

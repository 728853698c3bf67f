import NetCore
import NetKitLock

/// The credential of an event source made outside any actor: the `accessToken` closure's token as read when the
/// source was made (the closure is not `Sendable`, so it is never kept), until a renewal; from then on the token
/// `renewedToken` reads, or ``RenewedTokenUnavailable`` when there is nothing to read it from.
///
/// One value serves every connection of the source, so a renewal made by one connection holds for the next.
package struct SnapshotTokenCredentials: CredentialProvider {
    private let snapshot: String?
    private let renewedToken: (@Sendable () -> String?)?
    private let renewals: Renewals?

    /// - Parameters:
    ///   - snapshot: The token read when the source was made.
    ///   - renewedToken: Where the token comes from after a renewal (the refresher's, when it reports one).
    ///   - recovery: The renewal a rejection triggers; `nil` when the token cannot be renewed.
    package init(
        snapshot: String?, renewedToken: (@Sendable () -> String?)?, recovery: (any CredentialRecovery)?
    ) {
        self.snapshot = snapshot
        self.renewedToken = renewedToken
        self.renewals = recovery.map(Renewals.init)
    }

    /// The renewal, watched so that the source knows its snapshot is stale.
    package var recovery: (any CredentialRecovery)? { renewals }

    /// The snapshot before any renewal, the renewed token after one; `nil` or empty sends no header.
    /// - Throws: ``RenewedTokenUnavailable`` after a renewal when there is no renewed token to read.
    package func authorize(_ request: inout TransportRequest) async throws {
        let token: String?
        if renewals?.happened == true {
            guard let renewedToken else { throw RenewedTokenUnavailable() }
            token = renewedToken()
        } else {
            token = snapshot
        }
        guard let token, !token.isEmpty else { return }
        try request.setHeader("Authorization", "Bearer \(token)")
    }

    /// A recovery that remembers that it renewed the credential (or found it renewed since a request was sent).
    final class Renewals: CredentialRecovery {
        private let base: any CredentialRecovery
        private let renewed = Lock(false)

        init(_ base: any CredentialRecovery) {
            self.base = base
        }

        /// Whether a renewal has succeeded for one of the source's connections.
        var happened: Bool { renewed.withLock { $0 } }

        func generation() async -> UInt64 {
            await base.generation()
        }

        func recover(fromUnauthorizedAt generation: UInt64) async throws {
            try await base.recover(fromUnauthorizedAt: generation)
            renewed.withLock { $0 = true }
        }
    }
}

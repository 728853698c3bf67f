/// EKNetwork's credential: the `accessToken` closure's token as `Authorization: Bearer`, renewed by a
/// `tokenRefresher` through `recovery`.
package struct BearerTokenCredentials: CredentialProvider {
    private let token: CallerIsolated<(() -> String?)?>
    package let recovery: (any CredentialRecovery)?

    package init(token: CallerIsolated<(() -> String?)?>, recovery: (any CredentialRecovery)?) {
        self.token = token
        self.recovery = recovery
    }

    /// Reads the token on the caller's actor; `nil` or empty sends no header.
    package func authorize(_ request: inout TransportRequest) async throws {
        guard let token = await token.read({ $0?() }), !token.isEmpty else { return }
        try request.setHeader("Authorization", "Bearer \(token)")
    }
}

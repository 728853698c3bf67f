/// EKNetwork's credential: the `accessToken` closure's token as `Authorization: Bearer`, renewed by a
/// `tokenRefresher` through `recovery`.
package struct BearerTokenCredentials: CredentialProvider {
    private let token: CallerIsolated<(() -> String?)?>
    package let recovery: (any CredentialRecovery)?

    package init(token: CallerIsolated<(() -> String?)?>, recovery: (any CredentialRecovery)?) {
        self.token = token
        self.recovery = recovery
    }

    /// Whether there is no token closure: then nothing is read, and no attempt goes to the caller's actor for it.
    var hasNoToken: Bool { token.isNone() }

    /// Asks the recovery (the rejection statuses of NetAuth's `TokenRefreshPolicy`, for its coordinator); 401 without
    /// one.
    package func isRejection(_ response: HTTPResponseHead) -> Bool {
        recovery?.isRejection(response) ?? (response.statusCode == 401)
    }

    /// Reads the token on the caller's actor; `nil` or empty sends no header.
    package func authorize(_ request: inout TransportRequest) async throws {
        guard !hasNoToken, let token = await token.read({ $0?() }), !token.isEmpty else { return }
        try request.setHeader("Authorization", "Bearer \(token)")
    }
}

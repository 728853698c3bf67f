import NetAuth
import NetCore
import TodosAPI

/// Bearer access tokens renewed through the API's own `refreshToken` operation.
struct TodosAuthenticator: Authenticator {
    struct Credential: Sendable, Equatable {
        var accessToken: String
        var refreshToken: String
    }

    /// A client without credentials: the refresh request must not carry, or wait for, the credential it renews.
    let tokenClient: Client

    func apply(_ credential: Credential, to request: inout TransportRequest) throws {
        try request.setHeader("Authorization", "Bearer \(credential.accessToken)")
    }

    func refresh(_ credential: Credential) async throws -> Credential {
        let output = try await tokenClient.refreshToken(body: .json(.init(refreshToken: credential.refreshToken)))
        let pair = try output.ok.body.json
        return Credential(accessToken: pair.accessToken, refreshToken: pair.refreshToken)
    }
}

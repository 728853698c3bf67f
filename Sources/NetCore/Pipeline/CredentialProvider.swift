/// Where a request's credential comes from and how it is renewed after a 401: the seam of the credential stage.
///
/// `NetworkManager` builds one from EKNetwork's `accessToken` closure and its `tokenRefresher`; NetAuth's
/// `AuthenticatorCredentials` builds one from an OAuth-style `Authenticator`.
public protocol CredentialProvider: Sendable {
    /// Puts the current credential on `request` (called before every attempt, after the held line).
    func authorize(_ request: inout TransportRequest) async throws

    /// The single-flight renewal a rejection triggers; `nil` when the credential cannot be renewed.
    var recovery: (any CredentialRecovery)? { get }

    /// Whether a failed response means the credential was rejected. Defaults to status 401.
    func isRejection(_ response: HTTPResponseHead) -> Bool
}

extension CredentialProvider {
    /// A 401 means the credential was rejected.
    public func isRejection(_ response: HTTPResponseHead) -> Bool {
        response.statusCode == 401
    }
}

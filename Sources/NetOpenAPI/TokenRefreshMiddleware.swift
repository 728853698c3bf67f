#if OpenAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import NetCore
import OpenAPIRuntime

/// NetKit's credential with its single-flight renewal as a swift-openapi-runtime `ClientMiddleware`, for a client
/// that keeps another transport (swift-openapi-urlsession's, swift-openapi-async-http-client's).
///
/// Every request gets the current credential; a rejected one (401, or what the provider's `isRejection` says)
/// waits for one renewal shared by every request rejected meanwhile (NetAuth's `AuthenticatorCredentials` or
/// any ``NetCore/CredentialProvider`` with a recovery), then is sent once more with the new credential. A
/// request that names its own `Authorization` is left alone; one whose body can be iterated only once is not
/// sent again (its 401 reaches the client). Over ``NetKitClientTransport`` there is no need for it: pass the
/// credentials to the transport, whose road does the same.
///
/// ```swift
/// let client = Client(
///     serverURL: try Servers.Server1.url(),
///     transport: URLSessionTransport(),   // swift-openapi-urlsession's
///     middlewares: [TokenRefreshMiddleware(credentials: AuthenticatorCredentials(authenticator: OAuth(), credential: saved))]
/// )
/// ```
public struct TokenRefreshMiddleware: ClientMiddleware {
    /// Where the credential comes from and how it is renewed.
    public let credentials: any CredentialProvider

    /// Creates the middleware.
    public init(credentials: any CredentialProvider) {
        self.credentials = credentials
    }

    /// Sends `request` with the credential, renewing it once after a rejection.
    /// - Throws: what `next` throws, the provider's error, or the renewal's error.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard request.headerFields[.authorization] == nil else { return try await next(request, body, baseURL) }
        let canResend = body == nil || body?.iterationBehavior == .multiple
        let credentials = self.credentials
        do {
            // The engine's credential stage runs the same routine: one renewal at most, the resend's answer final.
            return try await RenewOnce.send(
                recovery: canResend ? credentials.recovery : nil,
                attempt: {
                    try await next(
                        try await authorized(request, baseURL: baseURL, operationID: operationID), body, baseURL)
                },
                isRejected: { answer in credentials.isRejection(Self.head(of: answer.0)) }
            )
        } catch let failure as RefreshFailure {
            // The client sees the renewal's own error, as the engine's caller does.
            throw failure.underlying
        }
    }

    /// `request` with the credential the provider puts on it: the provider works on NetKit's request, whose
    /// fields are copied back in order.
    private func authorized(_ request: HTTPRequest, baseURL: URL, operationID: String) async throws -> HTTPRequest {
        var transportRequest = TransportRequest(head: try HeadConversion.head(of: request, baseURL: baseURL))
        transportRequest.operationID = operationID
        try await credentials.authorize(&transportRequest)
        var authorized = request
        var fields = HTTPFields()
        for field in transportRequest.head.headerFields {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        // Framing fields were left out of NetKit's head; the client's own stay as they were.
        for field in request.headerFields where HeadConversion.isFraming(field.name) { fields.append(field) }
        authorized.headerFields = fields
        return authorized
    }

    /// NetKit's head of a response, for the provider's `isRejection`.
    private static func head(of response: HTTPResponse) -> NetCore.HTTPResponseHead {
        var fields = HTTPHeaderFields()
        for field in response.headerFields { try? fields.addValue(field.value, for: field.name.rawName) }
        return NetCore.HTTPResponseHead(
            statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase, headerFields: fields)
    }
}
#endif

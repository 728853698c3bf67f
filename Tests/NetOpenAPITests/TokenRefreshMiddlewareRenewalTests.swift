#if OpenAPI
import Foundation
import HTTPTypes
import NetAuth
import NetCore
import NetOpenAPI
import OpenAPIRuntime
import NetKitLock
import Testing

/// The middleware runs the engine's renew-once routine: these are the cases the engine's credential stage is held to.
@Suite("TokenRefreshMiddleware: the engine's renew-once routine and the provider's rejection statuses")
struct TokenRefreshMiddlewareRenewalTests {
    static let base = URL(string: "https://api.test")!

    /// Answers `rejection` unless the request carries the fresh token (or always, with `rejectsEverything`).
    final class Server: Sendable {
        let rejection: HTTPResponse.Status
        let rejectsEverything: Bool
        private let calls = Lock<[String]>([])
        var authorizations: [String] { calls.withLock { $0 } }

        init(rejection: HTTPResponse.Status = .unauthorized, rejectsEverything: Bool = false) {
            self.rejection = rejection
            self.rejectsEverything = rejectsEverything
        }

        @Sendable func next(_ request: HTTPRequest, _ body: HTTPBody?, _ url: URL) async throws -> (
            HTTPResponse, HTTPBody?
        ) {
            let authorization = request.headerFields[.authorization] ?? "none"
            calls.withLock { $0.append(authorization) }
            let accepted = authorization == "Bearer fresh" && !rejectsEverything
            return (HTTPResponse(status: accepted ? .ok : rejection), nil)
        }
    }

    /// A bearer token whose server says 419 when the session expired; refreshes as told.
    struct SessionAuthenticator: Authenticator {
        let refreshes = CountingAuthenticator.Refreshes()
        var failure: (any Error)?

        func apply(_ credential: String, to request: inout TransportRequest) throws {
            try request.setHeader("Authorization", "Bearer \(credential)")
        }

        func refresh(_ credential: String) async throws -> String {
            refreshes.increment()
            if let failure { throw failure }
            return "fresh"
        }

        func isAuthenticationFailure(_ response: NetCore.HTTPResponseHead) -> Bool {
            response.statusCode == 419
        }
    }

    struct RefreshBroke: Error, Equatable {}

    func send(_ middleware: TokenRefreshMiddleware, to server: Server) async throws -> Int {
        try await middleware.intercept(
            request(.get, "/me"), body: nil, baseURL: Self.base, operationID: "getProfile", next: server.next
        ).0.status.code
    }

    @Test("a provider that names 419 renews on it; a 401 it does not name is left as it came")
    func providerNames419() async throws {
        let authenticator = SessionAuthenticator()
        let middleware = TokenRefreshMiddleware(
            credentials: AuthenticatorCredentials(authenticator: authenticator, credential: "stale"))
        let server = Server(rejection: HTTPResponse.Status(code: 419))
        #expect(try await send(middleware, to: server) == 200)
        #expect(authenticator.refreshes.value == 1)
        #expect(server.authorizations == ["Bearer stale", "Bearer fresh"])

        let other = SessionAuthenticator()
        let unauthorized = Server()
        let plain = TokenRefreshMiddleware(
            credentials: AuthenticatorCredentials(authenticator: other, credential: "stale"))
        #expect(try await send(plain, to: unauthorized) == 401)
        #expect(other.refreshes.value == 0)
    }

    @Test("a server that rejects every credential costs one renewal and one resend, as on the engine's road")
    func oneRenewalAgainstARejectingServer() async throws {
        let authenticator = CountingAuthenticator()
        let middleware = TokenRefreshMiddleware(
            credentials: AuthenticatorCredentials(authenticator: authenticator, credential: "stale"))
        let server = Server(rejectsEverything: true)
        #expect(try await send(middleware, to: server) == 401)
        #expect(authenticator.refreshes.value == 1)
        #expect(server.authorizations == ["Bearer stale", "Bearer fresh"])
    }

    @Test("a renewal that fails reaches the client as the refresh's own error")
    func renewalFailure() async throws {
        var authenticator = SessionAuthenticator()
        authenticator.failure = RefreshBroke()
        let middleware = TokenRefreshMiddleware(
            credentials: AuthenticatorCredentials(authenticator: authenticator, credential: "stale"))
        let server = Server(rejection: HTTPResponse.Status(code: 419))
        await #expect(throws: RefreshBroke.self) { try await send(middleware, to: server) }
        #expect(server.authorizations == ["Bearer stale"])
    }
}
#endif

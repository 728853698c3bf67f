#if OpenAPI
import Foundation
import HTTPTypes
import NetAuth
import NetCore
import NetOpenAPI
import OpenAPIRuntime
import NetKitLock
import Testing

@Suite("TokenRefreshMiddleware: NetKit's single-flight renewal for another transport")
struct TokenRefreshMiddlewareTests {
    static let base = URL(string: "https://api.test")!

    /// A `next` that answers 401 unless the request carries the fresh token, and counts calls.
    ///
    /// With `holdingUnauthorized: n` it holds each 401 until `n` requests without the fresh token have arrived, then
    /// answers them all at once: the 401s then certainly overlap, however the tasks are scheduled.
    final class Server: Sendable {
        private struct State {
            var calls: [String] = []
            var held: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Lock(State())
        private let holdingUnauthorized: Int

        init(holdingUnauthorized: Int = 0) {
            self.holdingUnauthorized = holdingUnauthorized
        }

        var authorizations: [String] { state.withLock { $0.calls } }

        @Sendable func next(_ request: HTTPRequest, _ body: HTTPBody?, _ url: URL) async throws -> (
            HTTPResponse, HTTPBody?
        ) {
            let authorization = request.headerFields[.authorization] ?? "none"
            guard authorization != "Bearer fresh" else {
                state.withLock { $0.calls.append(authorization) }
                return (HTTPResponse(status: .ok), nil)
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.calls.append(authorization)
                    state.held.append(continuation)
                    let unauthorized = state.calls.filter { $0 != "Bearer fresh" }.count
                    guard unauthorized >= holdingUnauthorized else { return [] }
                    defer { state.held.removeAll() }
                    return state.held
                }
                for continuation in released { continuation.resume() }
            }
            return (HTTPResponse(status: .unauthorized), nil)
        }
    }

    @Test("ten 401s that certainly overlap wait for one renewal; each is sent once more with the new token")
    func oneRenewal() async throws {
        // Every 401 is held until all ten requests have got one: they overlap, however the tasks are scheduled.
        let server = Server(holdingUnauthorized: 10)
        let authenticator = CountingAuthenticator()
        let middleware = TokenRefreshMiddleware(
            credentials: AuthenticatorCredentials(authenticator: authenticator, credential: "stale"))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await middleware.intercept(
                        request(.get, "/me"), body: nil, baseURL: Self.base, operationID: "getProfile",
                        next: server.next
                    ).0.status.code
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        #expect(authenticator.refreshes.value == 1)
        #expect(server.authorizations.filter { $0 == "Bearer fresh" }.count == 10)
        #expect(server.authorizations.filter { $0 == "Bearer stale" }.count == 10)
        #expect(server.authorizations.count == 20)
    }

    @Test("a request with its own Authorization, or a body that can be read once, is not renewed")
    func leftAlone() async throws {
        let server = Server()
        let authenticator = CountingAuthenticator()
        let middleware = TokenRefreshMiddleware(
            credentials: AuthenticatorCredentials(authenticator: authenticator, credential: "stale"))
        let own = try await middleware.intercept(
            request(.get, "/me", [("Authorization", "Bearer mine")]), body: nil, baseURL: Self.base,
            operationID: "getProfile", next: server.next)
        #expect(own.0.status == .unauthorized)
        let streamed = try await middleware.intercept(
            request(.post, "/avatar"), body: singlePassBody([Data("x".utf8)]), baseURL: Self.base,
            operationID: "upload", next: server.next)
        #expect(streamed.0.status == .unauthorized)
        #expect(authenticator.refreshes.value == 0)
        #expect(server.authorizations == ["Bearer mine", "Bearer stale"])
    }
}
#endif

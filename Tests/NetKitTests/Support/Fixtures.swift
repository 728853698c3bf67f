import Foundation
import NetKit
import NetKitTesting
import NetKitLock

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct GetUser: NetworkRequest {
    typealias Response = User
    var id = 1
    var retries = 0
    var allowsRetry = true
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0) }
}

struct DeleteUser: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/users/1" }
    var method: HTTPMethod { .delete }
}

struct UpdateUser: NetworkRequest {
    typealias Response = StatusCodeResponse
    var path: String { "/users/1" }
    var method: HTTPMethod { .put }
    var body: RequestBody? { RequestBody(encodable: User(id: 1, name: "new")) }
}

struct APIError: Decodable, Error, Equatable, NonRetriableError {
    let message: String
}

struct CreateUser: NetworkRequest {
    typealias Response = User
    var name = "ann"
    var path: String { "/users" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(encodable: ["name": name]) }
    var errorDecoder: ((Data) -> (any Error)?)? { { try? JSONDecoder().decode(APIError.self, from: $0) } }
}

/// Hands out tokens and counts refreshes; a refresh swaps in the next token.
final class CountingRefresher: TokenRefreshProvider, Sendable {
    private let state = Lock((token: "token-0", refreshes: 0))
    let failure: (any Error)?

    init(failure: (any Error)? = nil) {
        self.failure = failure
    }

    var token: String { state.withLock { $0.token } }
    var refreshes: Int { state.withLock { $0.refreshes } }

    func refreshTokenIfNeeded() async throws {
        let count = state.withLock { state -> Int in
            state.refreshes += 1
            return state.refreshes
        }
        if let failure { throw failure }
        state.withLock { $0.token = "token-\(count)" }
    }
}

struct RefreshFailed: Error, Equatable {}

extension StubTransport.RecordedRequest {
    var bearer: String? { value(forHeader: "Authorization") }
}

let stubBase = URL(string: "https://api.test/v1")!

/// A refresher that blocks until the test opens it, and says when a refresh has started.
final class RefreshGate: TokenRefreshProvider, Sendable {
    private let state = Lock((token: "expired", refreshes: 0))
    private let started: AsyncStream<Void>
    private let start: AsyncStream<Void>.Continuation
    private let gate: AsyncStream<Void>
    private let release: AsyncStream<Void>.Continuation

    init() {
        (started, start) = AsyncStream.makeStream(of: Void.self)
        (gate, release) = AsyncStream.makeStream(of: Void.self)
    }

    var token: String { state.withLock { $0.token } }
    var refreshes: Int { state.withLock { $0.refreshes } }

    func waitUntilRefreshStarts() async {
        for await _ in started { return }
    }

    func open() { release.finish() }

    func refreshTokenIfNeeded() async throws {
        state.withLock { $0.refreshes += 1 }
        start.yield()
        for await _ in gate {}
        state.withLock { $0.token = "fresh" }
    }
}

struct IssueTokens: NetworkRequest {
    struct Tokens: Decodable { let accessToken: String }
    typealias Response = Tokens
    var path: String { "/auth/refresh" }
    var method: HTTPMethod { .post }
}

/// Refreshes through the same manager, as EKNetwork's `TokenManager` example does.
final class ManagerTokenStore: TokenRefreshProvider, Sendable {
    let manager: NetworkManager
    let token = Lock("expired")
    init(manager: NetworkManager) { self.manager = manager }
    var current: String { token.withLock { $0 } }
    func refreshTokenIfNeeded() async throws {
        let tokens = try await manager.send(IssueTokens(), accessToken: nil)
        token.withLock { $0 = tokens.accessToken }
    }
}

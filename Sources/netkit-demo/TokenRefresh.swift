import Foundation
import NetKit
import NetKitLock

struct GetProfile: NetworkRequest {
    struct Profile: Decodable, Sendable { let name: String }
    typealias Response = Profile
    var path: String { "/me" }
    var method: HTTPMethod { .get }
}

struct RefreshTokens: NetworkRequest {
    struct Tokens: Decodable { let accessToken: String }
    typealias Response = Tokens
    var path: String { "/auth/refresh" }
    var method: HTTPMethod { .post }
}

/// The app's session: it holds the access token and renews it through the same manager.
final class Session: TokenRefreshProvider, Sendable {
    let token = Lock("expired-token")
    let manager: NetworkManager
    init(manager: NetworkManager) { self.manager = manager }

    func refreshTokenIfNeeded() async throws {
        let tokens = try await manager.send(RefreshTokens(), accessToken: nil)
        token.withLock { $0 = tokens.accessToken }
    }
}

extension Demo {
    /// Twenty requests go out with an expired token at once: their 401s share one refresh, then each is sent again.
    func tokenRefresh() async throws {
        Output.section("20 concurrent requests, one token refresh")
        let manager = Demo.manager(for: server)
        let session = Session(manager: manager)
        manager.tokenRefresher = session
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await manager.send(GetProfile(), accessToken: { session.token.withLock { $0 } }).name
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        let refreshes = await manager.tokenRefreshCoordinator?.refreshCount ?? 0
        Output.line("\(names.count) × GET /me → \"\(names[0])\" with the expired token, then the fresh one")
        Output.line("token refreshes: \(refreshes)")
        Output.line("server: \(server.sinceLastLook().sorted(by: Self.exchangeOrder).summary)")
    }

    /// 401s first, then the refresh, then the 200s: the order in which they happened, grouped for reading.
    private static func exchangeOrder(_ a: String, _ b: String) -> Bool {
        func rank(_ line: String) -> Int { line.hasSuffix("401") ? 0 : line.contains("/auth/") ? 1 : 2 }
        return rank(a) < rank(b)
    }
}

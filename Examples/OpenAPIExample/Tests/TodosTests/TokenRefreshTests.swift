import Foundation
import NetAuth
import Testing
import TodosAPI
import TodosServer

@Suite("Token refresh", .timeLimit(.minutes(1)))
struct TokenRefreshTests {
    @Test("20 concurrent calls with an expired token all succeed after exactly one refresh")
    func concurrentCallsShareOneRefresh() async throws {
        let ledger = ServerLedger(accessToken: "access-0", refreshToken: "refresh-0")
        try await LocalTodosServer.run(ledger: ledger) { baseURL, _ in
            let credentials = AuthenticatorCredentials(
                authenticator: TodosAuthenticator(tokenClient: TodosClients.client(baseURL: baseURL)),
                credential: .init(accessToken: "expired", refreshToken: "refresh-0")
            )
            let client = TodosClients.client(baseURL: baseURL, credentials: credentials)

            let names = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.getProfile().ok.body.json.name }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }

            #expect(names == Array(repeating: "Ada", count: 20))
            #expect(ledger.counts.refreshes == 1)
            #expect(credentials.credential == .init(accessToken: "access-1", refreshToken: "refresh-1"))
            #expect(await credentials.refreshCoordinator.refreshCount == 1)
            // Every call was answered once with the new token; the rejected ones were sent with the expired one.
            let counts = ledger.counts
            #expect(counts.profileRequests - counts.rejectedProfileRequests == 20)
            #expect((1...20).contains(counts.rejectedProfileRequests))
        }
    }
}

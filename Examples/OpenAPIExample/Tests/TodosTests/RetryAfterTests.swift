import Foundation
import NetCore
import Testing
import TodosAPI
import TodosServer

@Suite("Retry-After", .timeLimit(.minutes(1)))
struct RetryAfterTests {
    @Test("503 with Retry-After: 1 is retried after one second on the executor's clock, then 200")
    func serviceUnavailableIsRetried() async throws {
        try await LocalTodosServer.run { baseURL, ledger in
            let clock = ManualClock()
            let recorder = OperationRecorder()
            let client = TodosClients.client(
                baseURL: baseURL, retryPolicy: RetryPolicy(maxRetryCount: 2), clock: clock, plugins: [recorder])

            let report = try await client.getReport().ok.body.json

            #expect(report.attempts == 2)
            #expect(ledger.counts.reportAttempts == 2)
            #expect(clock.sleeps == [.seconds(1)])
            #expect(recorder.recorded == ["getReport", "getReport"])
        }
    }

    @Test("without a retry policy the documented 503 and its Retry-After reach the client")
    func withoutPolicyTheClientSeesTheHeader() async throws {
        try await LocalTodosServer.run { baseURL, ledger in
            let clock = ManualClock()
            let client = TodosClients.client(baseURL: baseURL, clock: clock)

            let output = try await client.getReport()

            guard case .serviceUnavailable(let unavailable) = output else {
                Issue.record("expected .serviceUnavailable, got \(output)")
                return
            }
            #expect(unavailable.headers.retryAfter == 1)
            #expect(ledger.counts.reportAttempts == 1)
            #expect(clock.sleeps.isEmpty)
        }
    }
}

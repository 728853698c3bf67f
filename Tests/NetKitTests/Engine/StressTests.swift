import Foundation
import NetKit
import NetKitTesting
import NetKitLock
import Testing

/// 10,000 requests from 64 tasks through one engine, with token refreshes, retries, timeouts and cancellations
/// mixed in: each ends exactly once, with the outcome its kind calls for.
@Suite("Stress: 10,000 requests from 64 tasks", .timeLimit(.minutes(10)))
struct StressTests {
    /// What a request of each kind must end as.
    enum Kind: Int, CaseIterable {
        /// 401 on the first attempt, as for a retired token: a refresh shared with the others, then 200.
        case rotation
        /// 503 with `Retry-After: 0` on the first attempt, 200 on the second.
        case retry
        /// The server never answers within the request's 20 ms timeout.
        case timeout
        /// The caller cancels its task.
        case cancellation
        /// Plain 200.
        case plain

        init(_ index: Int) {
            self = Kind(rawValue: index % 10) ?? .plain
        }
    }

    struct Call: NetworkRequest {
        typealias Response = String
        let index: Int
        var path: String { "/\(Kind(index))/\(index)" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy {
            Kind(index) == .retry ? RetryPolicy(maxRetryCount: 1, delay: 0, jitter: .none) : RetryPolicy()
        }
        var timeout: Duration? { Kind(index) == .timeout ? .milliseconds(20) : .seconds(60) }
    }

    /// The server's side: how often each path was asked for, and the tokens it saw.
    final class Server: Sendable {
        let attempts = Lock<[String: Int]>([:])

        func reply(to request: TransportRequest) -> StubTransport.Reply {
            let path = request.url?.path() ?? ""
            let attempt = attempts.withLock { attempts in
                attempts[path, default: 0] += 1
                return attempts[path]!
            }
            let index = Int(path.split(separator: "/").last ?? "") ?? -1
            switch Kind(index) {
            case .rotation where attempt == 1:
                // The token this request carried has been retired: 401, which many requests get at once.
                return StubTransport.Reply(status: 401)
            case .rotation where request.value(forHeader: "Authorization") == "Bearer t0":
                // A second attempt must carry a renewed token.
                return StubTransport.Reply(status: 401)
            case .retry where attempt == 1:
                return StubTransport.Reply(status: 503, headers: ["Retry-After": "0"])
            case .timeout, .cancellation:
                return StubTransport.Reply(chunks: [Data("late".utf8)], delay: .seconds(30))
            default:
                return StubTransport.Reply(chunks: [Data("\(index)".utf8)])
            }
        }
    }

    /// The client's side: its token, its refreshes (how many, and the most that ever ran at once), and how each
    /// request ended.
    final class Client: Sendable {
        let token = Lock(0)
        let refreshes = Lock((started: 0, running: 0, mostAtOnce: 0))
        let outcomes = Lock<[Int: String]>([:])

        func record(_ index: Int, _ outcome: String) {
            outcomes.withLock { $0[index] = outcome }
        }

        /// One refresh: counted while it runs, with a suspension in the middle so that a second refresh started
        /// beside it would be seen running at the same time.
        func refresh() async {
            let number = refreshes.withLock { refreshes in
                refreshes.started += 1
                refreshes.running += 1
                refreshes.mostAtOnce = max(refreshes.mostAtOnce, refreshes.running)
                return refreshes.started
            }
            await Task.yield()
            token.withLock { $0 = number }
            refreshes.withLock { $0.running -= 1 }
        }
    }

    @Test("every request ends as its kind calls for, sent no more often than it calls for; refreshes never overlap")
    func tenThousand() async throws {
        let server = Server()
        let stub = StubTransport { request, _ in server.reply(to: request) }
        let client = Client()
        let coordinator = TokenRefreshCoordinator(policy: TokenRefreshPolicy(maxRefreshes: 1000)) {
            await client.refresh()
        }
        // Every /retry/ request fails once: a tenth of the traffic retrying at once is what a retry budget refuses
        // (RetryBudgetTests); this test is about each request's own bounds.
        let executor = {
            var executor = RequestExecutor(transport: stub)
            executor.retryBudget = nil
            return executor
        }()
        let base = URL(string: "https://stress.test")!

        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<64 {
                group.addTask {
                    for index in stride(from: worker, to: 10_000, by: 64) {
                        let call = Task {
                            try await executor.send(
                                Call(index: index), baseURL: base, accessToken: { "t\(client.token.withLock { $0 })" },
                                credentials: coordinator)
                        }
                        if Kind(index) == .cancellation { call.cancel() }
                        do {
                            client.record(index, "value \(try await call.value)")
                        } catch is CancellationError {
                            client.record(index, "cancelled")
                        } catch let error as TransportError {
                            client.record(index, "transport \(error.kind)")
                        } catch {
                            client.record(index, "other \(error)")
                        }
                    }
                }
            }
        }

        let all = client.outcomes.withLock { $0 }
        #expect(all.count == 10_000)
        var wrong: [String] = []
        for index in 0..<10_000 {
            let expected =
                switch Kind(index) {
                case .rotation, .retry, .plain: "value \(index)"
                case .timeout: "transport timedOut"
                case .cancellation: "cancelled"
                }
            if all[index] != expected { wrong.append("\(index): \(all[index] ?? "none"), expected \(expected)") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, first: \(wrong.prefix(5))")
        // Every retry and every 401 was sent exactly twice, every plain request once: a request the engine sent
        // again after it had succeeded (a duplicate) shows here.
        let attempts = server.attempts.withLock { $0 }
        let duplicated = attempts.filter { path, count in
            (path.hasPrefix("/retry/") || path.hasPrefix("/rotation/"))
                ? count != 2 : path.hasPrefix("/plain/") && count != 1
        }
        #expect(duplicated.isEmpty, "sent more or less often than their kind calls for: \(duplicated.prefix(5))")
        #expect(attempts.keys.filter { $0.hasPrefix("/plain/") }.count == 6_000)
        // The 401s came in waves (each request is sent with the token of its time); however many refreshes that
        // took, no two ran at once. That exactly one refresh answers 401s that overlap is `overlappingBurst`.
        let refreshes = client.refreshes.withLock { $0 }
        #expect(refreshes.started >= 1)
        #expect(refreshes.mostAtOnce == 1, "\(refreshes.mostAtOnce) refreshes ran at once")
    }

    @Test("64 401s that certainly overlap (each held until all 64 have arrived) are answered by exactly one refresh")
    func overlappingBurst() async throws {
        let burst = 64
        let gate = StubGate()
        // Opens the gate once every request's first attempt is held there: all 64 401s are then answered together.
        let opener = Task {
            await gate.waitForArrivals(burst)
            gate.open()
        }
        let stub = StubTransport { request, _ in
            guard request.value(forHeader: "Authorization") == "Bearer t1" else {
                var unauthorized = StubTransport.Reply(status: 401)
                unauthorized.gate = gate
                return unauthorized
            }
            return StubTransport.Reply(chunks: [Data("renewed".utf8)])
        }
        let client = Client()
        let coordinator = TokenRefreshCoordinator { await client.refresh() }
        let executor = RequestExecutor(transport: stub)
        let base = URL(string: "https://stress.test")!

        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for index in stride(from: 0, to: burst * 10, by: 10) {
                group.addTask {
                    try await executor.send(
                        Call(index: index), baseURL: base, accessToken: { "t\(client.token.withLock { $0 })" },
                        credentials: coordinator)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await opener.value

        #expect(values == Array(repeating: "renewed", count: burst))
        #expect(client.refreshes.withLock { $0.started } == 1)
        // Each request was held once with the old token and then sent once with the new one.
        #expect(gate.arrivals == burst)
        #expect(stub.requests.count == 2 * burst)
    }
}

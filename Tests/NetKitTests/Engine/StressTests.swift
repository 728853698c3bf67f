import Foundation
import NetKit
import NetKitTesting
import NetKitLock
import Testing

/// 10,000 requests from 64 tasks through one engine, with token refreshes, retries, timeouts and cancellations
/// mixed in: each ends exactly once, with the outcome its kind calls for.
@Suite("Stress: 10,000 requests from 64 tasks", .timeLimit(.minutes(3)))
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

    /// The client's side: its token, its refreshes, and how each request ended.
    final class Client: Sendable {
        let token = Lock(0)
        let refreshes = Lock(0)
        let outcomes = Lock<[Int: String]>([:])
        let duplicates = Lock(0)

        func record(_ index: Int, _ outcome: String) {
            outcomes.withLock { outcomes in
                if outcomes[index] != nil { duplicates.withLock { $0 += 1 } }
                outcomes[index] = outcome
            }
        }
    }

    @Test("every request ends exactly once, as its kind calls for; refreshes stay single-flight")
    func tenThousand() async throws {
        let server = Server()
        let stub = StubTransport { request, _ in server.reply(to: request) }
        let client = Client()
        let coordinator = TokenRefreshCoordinator(policy: TokenRefreshPolicy(maxRefreshes: 1000)) {
            let number = client.refreshes.withLock {
                $0 += 1
                return $0
            }
            client.token.withLock { $0 = number }
        }
        let executor = RequestExecutor(transport: stub)
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
        #expect(client.duplicates.withLock { $0 } == 0)
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
        // Every retry and every 401 was sent exactly twice; the 401s were answered by shared refreshes, at most one
        // per request that got one.
        let attempts = server.attempts.withLock { $0 }
        #expect(
            attempts.filter { $0.key.hasPrefix("/retry/") || $0.key.hasPrefix("/rotation/") }.allSatisfy {
                $0.value == 2
            })
        #expect((1...1000).contains(client.refreshes.withLock { $0 }), "\(client.refreshes.withLock { $0 }) refreshes")
    }
}

import Foundation
import NetKit
import NetKitTesting
import NetKitLock
import Testing

/// A plugin written the way a third party writes one: nothing package-only, only what every hook is given.
@Suite("Plugin context: a plugin pairs each request's end with its start by the context alone")
struct PluginContextPairingTests {
    /// Files each request under its context's number in `prepare` and takes it out in `didFinish`: what a span, a
    /// timer or a log correlation of a third party needs.
    final class Pairing: Plugin, Sendable {
        struct Ended: Equatable {
            var path: String
            var outcome: String
            var cancelled: Bool
            var attempts: Int
        }

        private struct Book {
            var open: [UInt64: (path: String, cancelled: Bool)] = [:]
            var ended: [Ended] = []
            var unpaired = 0
        }

        private let book = Lock(Book())

        var ended: [Ended] { book.withLock { $0.ended.sorted { $0.path < $1.path } } }
        var openCount: Int { book.withLock { $0.open.count } }
        var unpaired: Int { book.withLock { $0.unpaired } }

        func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
            // The path is what prepare knows; the end learns it only through the number.
            book.withLock { $0.open[context.requestNumber] = (request.head.path, false) }
            return request
        }

        func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics, context: PluginContext) async {
            book.withLock { book in
                if book.open[context.requestNumber] != nil {
                    book.open[context.requestNumber]?.cancelled = true
                } else {
                    book.unpaired += 1
                }
            }
        }

        func didFinish(
            _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
            context: PluginContext
        ) async {
            let outcome =
                switch result {
                case .success(let response): "\(response.statusCode)"
                case .failure(let error as HTTPError): "HTTP \(error.statusCode)"
                case .failure(is CancellationError): "cancelled"
                case .failure: "failed"
                }
            book.withLock { book in
                guard let started = book.open.removeValue(forKey: context.requestNumber) else {
                    book.unpaired += 1
                    return
                }
                book.ended.append(
                    Ended(
                        path: started.path, outcome: outcome, cancelled: started.cancelled,
                        attempts: context.attempt))
            }
        }
    }

    @Test("four overlapping requests, one succeeding, one failing with a status, one without a response, one cancelled")
    func overlappingRequests() async throws {
        let held = StubGate()
        let never = StubGate()
        let transport = StubTransport { request, _ in
            switch request.head.path {
            case "/v1/users/1": StubTransport.Reply.json(#"{"id":1,"name":"a"}"#).held(by: held)
            case "/v1/users/2": StubTransport.Reply.status(500).held(by: held)
            case "/v1/users/3":
                StubTransport.Reply.failure(TransportError(.connectionLost, host: "api.test")).held(by: held)
            default: StubTransport.Reply.status(200).held(by: never)
            }
        }
        let pairing = Pairing()
        let manager = NetworkManager(baseURL: stubBase, transport: transport)
        manager.plugins = [pairing]
        let calls = (1...3).map { id in Task { try await manager.send(GetUser(id: id), accessToken: nil) } }
        let cancelled = Task { try await manager.send(GetUser(id: 4), accessToken: nil) }
        await held.waitForArrivals(3)
        await never.waitForArrivals(1)
        #expect(pairing.openCount == 4, "all four are in flight at once")
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        held.open()
        for call in calls { _ = try? await call.value }
        #expect(pairing.unpaired == 0)
        #expect(pairing.openCount == 0, "every start was paired with its end")
        #expect(
            pairing.ended == [
                .init(path: "/v1/users/1", outcome: "200", cancelled: false, attempts: 1),
                .init(path: "/v1/users/2", outcome: "HTTP 500", cancelled: false, attempts: 1),
                .init(path: "/v1/users/3", outcome: "failed", cancelled: false, attempts: 1),
                .init(path: "/v1/users/4", outcome: "cancelled", cancelled: true, attempts: 1),
            ])
    }

    @Test("the end's context carries the last attempt's number and reason, and the request's start")
    func endContext() async throws {
        final class Last: Plugin, Sendable {
            let seen = Lock<(start: ContinuousClock.Instant?, end: PluginContext?)>((nil, nil))
            func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
                seen.withLock { $0.start = context.startedAt }
                return request
            }
            func didFinish(
                _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
                context: PluginContext
            ) async {
                #expect(context.startedAt == metrics.start)
                seen.withLock { $0.end = context }
            }
        }
        let transport = StubTransport(replies: [.status(503), .json(#"{"id":1,"name":"a"}"#)])
        let last = Last()
        let manager = NetworkManager(baseURL: stubBase, transport: transport)
        manager.plugins = [last]
        _ = try await manager.send(GetUser(retries: 1), accessToken: nil)
        let (start, end) = last.seen.withLock { $0 }
        let context = try #require(end)
        #expect(context.attempt == 2)
        guard case .retry = context.reason else {
            Issue.record("the last attempt was a retry, not \(context.reason)")
            return
        }
        #expect(context.startedAt == start)
    }

    /// A plugin written before the end hooks carried a context: it implements the deprecated ones.
    struct Legacy: Plugin {
        let log: EventLog
        func didFinish(
            _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics
        ) async {
            log.append("didFinish:\((try? result.get()).map { "\($0.statusCode)" } ?? "failure")")
        }
        func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics) async {
            log.append("wasCancelled")
        }
    }

    @Test("a plugin that implements the old hooks without a context still has them called")
    func legacyHooksStillRun() async throws {
        let log = EventLog()
        let manager = NetworkManager(
            baseURL: stubBase,
            transport: StubTransport(replies: [.json(#"{"id":1,"name":"a"}"#), .status(404)]))
        manager.plugins = [Legacy(log: log)]
        _ = try await manager.send(GetUser(), accessToken: nil)
        _ = try? await manager.send(GetUser(), accessToken: nil)
        #expect(log.all == ["didFinish:200", "didFinish:failure"])
    }
}

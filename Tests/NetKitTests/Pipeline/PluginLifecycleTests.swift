import Foundation
import Synchronization
import Testing
import NetKit
import NetKitTesting

@Suite("Plugin lifecycle")
struct PluginLifecycleTests {
    struct Flaky: NetworkRequest {
        typealias Response = User
        var plugins: [any Plugin] = []
        var path: String { "/users/1" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0) }
    }

    @Test(
        "every hook runs as documented: prepare and didFinish once per request, the others once per attempt, in priority order"
    )
    func hooksAndOrder() async throws {
        let log = EventLog()
        let refresher = CountingRefresher()
        let stub = StubTransport(replies: [.status(503), .status(401), .json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = refresher
        manager.plugins = [
            HookRecorder(name: "late", priority: .low, log: log),
            HookRecorder(name: "manager", priority: .normal, log: log),
            HookRecorder(name: "early", priority: .high, log: log),
        ]
        let request = Flaky(plugins: [HookRecorder(name: "request", priority: .normal, log: log)])
        let response = try await manager.response(for: request, accessToken: { refresher.token })
        #expect(response.value.id == 1)
        let order = ["early", "manager", "request", "late"]
        func each(_ hook: String) -> [String] { order.map { "\($0).\(hook)" } }
        var expected = each("prepare")
        for (attempt, status) in [(1, 503), (2, 401), (3, 200)] {
            expected +=
                each("willSend#\(attempt)") + each("didReceive#\(attempt):\(status)") + each("verify#\(attempt)")
        }
        expected += each("didFinish:200")
        #expect(log.all == expected)
        #expect(response.metrics.attempts == 3)
        #expect(response.metrics.retryWaits.count == 1)
        #expect(refresher.refreshes == 1)
    }

    @Test("a failed request finishes once with its failure; a cancelled one says so, then finishes")
    func failureAndCancellation() async throws {
        let log = EventLog()
        let failing = NetworkManager(baseURL: stubBase, transport: StubTransport(replies: [.status(404)]))
        failing.plugins = [HookRecorder(name: "p", priority: .normal, log: log)]
        await #expect(throws: HTTPError.self) { try await failing.send(GetUser(), accessToken: nil) }
        #expect(log.all == ["p.prepare", "p.willSend#1", "p.didReceive#1:404", "p.verify#1", "p.didFinish:failure"])

        let cancelLog = EventLog()
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        let slow = NetworkManager(
            baseURL: stubBase,
            transport: StubTransport { _, _ in
                signal.yield()
                return StubTransport.Reply.status(200).delayed(by: .seconds(600))
            })
        slow.plugins = [HookRecorder(name: "p", priority: .normal, log: cancelLog)]
        let task = Task { try await slow.send(GetUser(), accessToken: nil) }
        var iterator = reached.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(cancelLog.all == ["p.prepare", "p.willSend#1", "p.wasCancelled", "p.didFinish:failure"])
    }

    @Test("prepare may rewrite the URL; willSend changes one attempt")
    func prepareRewritesURL() async throws {
        struct Mirror: Plugin {
            func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
                var request = request
                try request.head.setURL(URL(string: "https://mirror.test/v2/users/1?via=plugin")!)
                return request
            }
            func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
                try request.setHeader("X-Attempt", "\(context.attempt)")
            }
        }
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.plugins = [Mirror()]
        _ = try await manager.send(GetUser(), accessToken: nil)
        #expect(stub.requests.first?.url?.absoluteString == "https://mirror.test/v2/users/1?via=plugin")
        #expect(stub.requests.first?.value(forHeader: "X-Attempt") == "1")
    }

    @Test("a verify that throws fails the request with the plugin's error")
    func verifyThrows() async throws {
        struct Maintenance: Error, Equatable {}
        struct Detector: Plugin {
            func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext)
                async throws -> PluginVerdict
            {
                if response.value(forHeader: "X-Maintenance") != nil { throw Maintenance() }
                return .accept
            }
        }
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#, headers: ["X-Maintenance": "1"])])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.plugins = [Detector()]
        await #expect(throws: Maintenance()) { try await manager.send(GetUser(), accessToken: nil) }
    }

    @Test("a verify that asks for another attempt gets it, up to the documented limit")
    func verifyRetries() async throws {
        struct RetryWhileStale: Plugin {
            func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext)
                async throws -> PluginVerdict
            {
                response.value(forHeader: "X-Stale") == nil ? .accept : .retry
            }
        }
        let stale = StubTransport.Reply.json(#"{"id":0,"name":"old"}"#, headers: ["X-Stale": "1"])
        let stub = StubTransport(replies: [stale, .json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.plugins = [RetryWhileStale()]
        let response = try await manager.response(for: GetUser(), accessToken: nil)
        #expect(response.value.id == 1)
        #expect(response.metrics.attempts == 2)

        let alwaysStale = StubTransport { _, _ in stale }
        let stubborn = NetworkManager(baseURL: stubBase, transport: alwaysStale)
        stubborn.plugins = [RetryWhileStale()]
        await #expect(throws: PluginRetryLimitExceeded(statusCode: 200)) {
            try await stubborn.send(GetUser(), accessToken: nil)
        }
        #expect(alwaysStale.requestCount == PluginVerdict.maximumRetries + 1)
    }

    @Test("cancelling while a plugin is busy ends the request with CancellationError")
    func cancelInsidePlugin() async throws {
        struct Stalling: Plugin {
            let entered: AsyncStream<Void>.Continuation
            func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
                entered.yield()
                try await Task.sleep(for: .seconds(600))
            }
        }
        let (entered, signal) = AsyncStream.makeStream(of: Void.self)
        let stub = StubTransport(replies: [.status(200)])
        let log = EventLog()
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.plugins = [Stalling(entered: signal), HookRecorder(name: "p", priority: .low, log: log)]
        let task = Task { try await manager.send(DeleteUser(), accessToken: nil) }
        var iterator = entered.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(stub.requestCount == 0)
        #expect(log.matching("wasCancelled").count == 1)
    }

    @Test("MicroClient's interceptors: the request one rewrites, the response one may throw")
    func interceptors() async throws {
        struct Rejected: Error {}
        let stub = StubTransport(replies: [.status(204), .status(204)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.plugins = [
            InterceptorPlugin(request: { request in
                var request = request
                try request.setHeader("X-Tenant", "acme")
                return request
            })
        ]
        _ = try await manager.send(DeleteUser(), accessToken: nil)
        #expect(stub.requests.first?.value(forHeader: "X-Tenant") == "acme")
        manager.plugins = [
            InterceptorPlugin(response: { response in if response.statusCode == 204 { throw Rejected() } })
        ]
        await #expect(throws: Rejected.self) { try await manager.send(DeleteUser(), accessToken: nil) }
    }
}

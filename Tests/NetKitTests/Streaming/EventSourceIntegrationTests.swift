import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit

struct Notifications: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/events" }
    var method: HTTPMethod { .get }
}

extension EventSourcePolicy {
    /// The default policy with a 1 ms floor, for tests whose servers send short `retry` intervals on purpose.
    static let quick = EventSourcePolicy(minimumDelay: .milliseconds(1))
}

/// The reconnecting event source against a real server on 127.0.0.1.
@Suite("Event source over loopback TCP")
struct EventSourceIntegrationTests {
    static let eventStream = [(name: "Content-Type", value: "text/event-stream; charset=utf-8")]

    @Test("reconnects after a deliberate drop with Last-Event-ID and the server's retry; 204 ends the source")
    func reconnectWithLastEventID() async throws {
        let connection = Lock(0)
        let server = try LoopbackServer { _ in
            switch connection.withLock({
                $0 += 1
                return $0
            }) {
            case 1:
                return .streamed(headers: Self.eventStream) { writer in
                    _ = writer.write("retry: 20\nid: 1\ndata: a\n\n")
                    writer.abort()
                }
            case 2:
                return .streamed(headers: Self.eventStream) { $0.write("id: 2\ndata: b\n\n") }
            default:
                return LoopbackResponse(status: 204)
            }
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        var events: [ServerSentEvent] = []
        for try await event in manager.eventSource(Notifications(), accessToken: nil, policy: .quick) {
            events.append(event)
        }
        #expect(events.map(\.data) == ["a", "b"])
        #expect(events.map(\.id) == ["1", "2"])
        #expect(server.requests.map { $0.header("Last-Event-ID") } == [nil, "1", "2"])
        #expect(server.requests.allSatisfy { $0.header("Accept") == "text/event-stream" })
    }

    @Test("204 at once ends the source cleanly, without events")
    func noContent() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 204) }
        defer { server.stop() }
        var count = 0
        for try await _ in NetworkManager(baseURL: server.baseURL).eventSource(Notifications(), accessToken: nil) {
            count += 1
        }
        #expect(count == 0)
        #expect(server.requestCount == 1)
    }

    @Test("any other failed status ends it with HTTPError; a body that is not an event stream with a typed error")
    func failures() async throws {
        let server = try LoopbackServer { request in
            request.header("X-Case") == "json" ? .json("{}") : .text("gone", status: 410)
        }
        defer { server.stop() }
        let error = await #expect(throws: HTTPError.self) {
            for try await _ in NetworkManager(baseURL: server.baseURL).eventSource(Notifications(), accessToken: nil) {}
        }
        #expect(error?.statusCode == 410)
        struct JSONCase: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/events" }
            var method: HTTPMethod { .get }
            var headers: [String: String]? { ["X-Case": "json"] }
        }
        await #expect(throws: StreamingError.unexpectedContentType("application/json")) {
            for try await _ in NetworkManager(baseURL: server.baseURL).eventSource(JSONCase(), accessToken: nil) {}
        }
        #expect(server.requestCount == 2, "neither was retried")
    }

    @Test("each connection reads the token afresh and goes through 401 → refresh")
    func tokenPerConnection() async throws {
        let connection = Lock(0)
        let server = try LoopbackServer { request in
            if request.path == "/auth/refresh" { return .json(#"{"accessToken":"fresh"}"#) }
            guard request.header("Authorization") == "Bearer fresh" else { return .json("{}", status: 401) }
            switch connection.withLock({
                $0 += 1
                return $0
            }) {
            case 1:
                return .streamed(headers: Self.eventStream) { writer in
                    _ = writer.write("retry: 10\ndata: first\n\n")
                    writer.abort()
                }
            case 2: return .streamed(headers: Self.eventStream) { $0.write("data: second\n\n") }
            default: return LoopbackResponse(status: 204)
            }
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let store = ManagerTokenStore(manager: manager)
        manager.tokenRefresher = store
        var data: [String] = []
        for try await event in manager.eventSource(Notifications(), tokenProvider: { store.current }, policy: .quick) {
            data.append(event.data)
        }
        #expect(data == ["first", "second"])
        #expect(server.requests.map(\.path) == ["/events", "/auth/refresh", "/events", "/events", "/events"])
        #expect(
            server.requests.filter { $0.path == "/events" }.map { $0.header("Authorization") }
                == ["Bearer expired", "Bearer fresh", "Bearer fresh", "Bearer fresh"])
    }

    @Test("a server that keeps dropping at once exhausts the policy; the error says what stopped the source")
    func reconnectLimit() async throws {
        let server = try LoopbackServer { _ in .streamed(headers: Self.eventStream) { $0.abort() } }
        defer { server.stop() }
        let policy = EventSourcePolicy(
            minimumDelay: .milliseconds(5), initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20),
            maximumAttempts: 3)
        let error = await #expect(throws: EventSourceError.self) {
            for try await _ in NetworkManager(baseURL: server.baseURL).eventSource(
                Notifications(), accessToken: nil, policy: policy)
            {}
        }
        guard case .reconnectLimitReached(let attempts, let lastError)? = error else { return }
        #expect(attempts == 3)
        #expect((lastError as? URLError)?.code == .networkConnectionLost)
        #expect(server.requestCount == 3)
    }

    @Test("breaking out of the loop closes the connection")
    func breakCloses() async throws {
        let server = try LoopbackServer { _ in
            .streamed(headers: Self.eventStream) { writer in
                _ = writer.write("data: one\n\n")
                _ = writer.waitForClientClose(timeout: .seconds(120))
            }
        }
        defer { server.stop() }
        for try await event in NetworkManager(baseURL: server.baseURL).eventSource(Notifications(), accessToken: nil) {
            #expect(event.data == "one")
            break
        }
        try await server.wait(for: .closedConnections, atLeast: 1, timeout: .seconds(120))
        #expect(server.requestCount == 1)
    }

    @Test(
        "reconnection waits: the server's retry, floored, doubled per failure up to the cap, jittered between half and all"
    )
    func policyBounds() {
        let policy = EventSourcePolicy(initialDelay: .seconds(3), maximumDelay: .seconds(20))
        #expect(policy.delay(afterFailures: 0, serverRetry: nil, randomUnit: 1) == .seconds(3))
        #expect(policy.delay(afterFailures: 0, serverRetry: .milliseconds(500), randomUnit: 0) == .seconds(1))
        #expect(policy.delay(afterFailures: 0, serverRetry: .seconds(4), randomUnit: 0) == .seconds(2))
        #expect(policy.delay(afterFailures: 2, serverRetry: .seconds(1), randomUnit: 1) == .seconds(4))
        #expect(policy.delay(afterFailures: 10, serverRetry: .seconds(1), randomUnit: 1) == .seconds(20))
        for failures in 0..<8 {
            let wait = policy.delay(afterFailures: failures, serverRetry: nil, randomUnit: Double.random(in: 0..<1))
            #expect(wait >= .milliseconds(1500) && wait <= .seconds(20))
        }
        #expect(EventSourcePolicy(maximumAttempts: 2).allowsAttempt(afterFailures: 1))
        #expect(!EventSourcePolicy(maximumAttempts: 2).allowsAttempt(afterFailures: 2))
    }

    @Test("a server that said retry: 0 and then fails every connection gets 7 connections in 60 s of clock time")
    func retryZeroBounded() async throws {
        let connection = Lock(0)
        let server = try LoopbackServer { _ in
            let first = connection.withLock {
                $0 += 1
                return $0 == 1
            }
            return .streamed(headers: Self.eventStream) { writer in
                if first { _ = writer.write("retry: 0\ndata: hello\n\n") }
                writer.abort()
            }
        }
        defer { server.stop() }
        let clock = VirtualClock(budget: .seconds(60))
        let executor = RequestExecutor(transport: URLSessionTransport(), clock: clock, randomUnit: { 0 })
        // A limit far above the bound, so that the test ends even without a floor (before it: 1,001 connections).
        let source = executor.eventSource(
            Notifications(), baseURL: { server.baseURL }, tokenProvider: { nil },
            policy: EventSourcePolicy(maximumAttempts: 1000))
        var iterator = source.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "hello")
        await #expect(throws: VirtualClock.BudgetSpent.self) { _ = try await iterator.next() }
        // The floor (1 s) after retry: 0, then doubling from it with the lowest jitter; 32 s more would pass 60 s.
        #expect(clock.waits == [1, 1, 2, 4, 8, 16].map { Duration.seconds($0) })
        #expect(server.requestCount == 7)
        #expect(iterator.connections == 7)
    }

    @Test("a server that answers 401 to every connection gets one refresh, then the source ends unauthorized")
    func unauthorizedForever() async throws {
        let server = try LoopbackServer { request in
            request.path == "/auth/refresh" ? .json(#"{"accessToken":"fresh"}"#) : .json("{}", status: 401)
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let store = ManagerTokenStore(manager: manager)
        manager.tokenRefresher = store
        await #expect(throws: NetworkError.unauthorized) {
            for try await _ in manager.eventSource(Notifications(), tokenProvider: { store.current }) {}
        }
        #expect(server.requests.map(\.path) == ["/events", "/auth/refresh", "/events"])
    }
}

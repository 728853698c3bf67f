import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("A whole-request timeout")
struct WholeRequestTimeoutTests {
    struct Patient: NetworkRequest {
        typealias Response = EmptyResponse
        var timeout: Duration?
        var path: String { "/slow" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 50, delay: 0.04, jitter: .none) }
    }

    @Test("the timeout bounds every attempt and retry wait together and ends the request with URLError(.timedOut)")
    func acrossRetries() async throws {
        // The first attempt fails at once and the retry hangs: the deadline must end an attempt in flight after a
        // retry wait, however slowly a busy machine runs the first one (a fixed per-attempt delay made the number
        // of attempts that fit depend on the machine's speed).
        let stub = StubTransport { _, index in
            index == 0 ? StubTransport.Reply.status(503) : StubTransport.Reply.status(503).delayed(by: .seconds(600))
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        // The deadline's timer keeps wall-clock time, however slowly the busy machine runs the request's task: the
        // first attempt and the retry wait must fit well inside it for the second attempt to be the one it ends.
        // Ten seconds: under the thread sanitizer, with every test at once on 2 cores, the first attempt and a 40 ms
        // wait once took more than two.
        let timeout = Duration.seconds(10)
        let (error, elapsed, timerElapsed) = try await onDedicatedExecutor {
            let clock = ContinuousClock()
            let started = clock.now
            // A bare timer for the same deadline, on the same thread: what "on time" means on this machine now,
            // however busy the other tests keep its cores.
            async let timer: Duration = {
                try await Task.sleep(until: started + timeout, clock: .continuous)
                return clock.now - started
            }()
            let error = await #expect(throws: URLError.self) {
                try await manager.send(Patient(timeout: timeout), accessToken: nil)
            }
            let elapsed = clock.now - started
            return (error, elapsed, try await timer)
        }
        #expect(error?.code == .timedOut)
        #expect(elapsed >= timeout)
        // Without the deadline the retries would run for seconds; the bound leaves room for a loaded machine.
        #expect(
            elapsed - timerElapsed < .milliseconds(150),
            "ends within 150 ms of its deadline: \(elapsed), a bare timer \(timerElapsed)")
        #expect(stub.requestCount == 2, "the retry after the wait is the attempt the deadline ends")
    }

    @Test("the manager's default applies to requests that name none; a request's own wins")
    func managerDefault() async throws {
        let stub = StubTransport { _, _ in StubTransport.Reply.status(204).delayed(by: .seconds(600)) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.defaultTimeout = .milliseconds(50)
        let error = await #expect(throws: URLError.self) { try await manager.send(Patient(), accessToken: nil) }
        #expect(error?.code == .timedOut)
        let quick = StubTransport(replies: [StubTransport.Reply.status(204).delayed(by: .milliseconds(100))])
        let lenient = NetworkManager(baseURL: stubBase, transport: quick)
        lenient.defaultTimeout = .milliseconds(10)
        _ = try await lenient.send(Patient(timeout: .seconds(30)), accessToken: nil)
    }

    @Test("the timeout covers a token refresh that takes too long")
    func coversRefresh() async throws {
        let gate = RefreshGate()
        let stub = StubTransport { _, _ in .status(401) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.tokenRefresher = gate
        let error = await #expect(throws: URLError.self) {
            try await manager.send(Patient(timeout: .milliseconds(100)), accessToken: { gate.token })
        }
        #expect(error?.code == .timedOut)
        gate.open()
    }

    @Test("cancelling the caller still ends in CancellationError, not a timeout")
    func cancellationWins() async throws {
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let stub = StubTransport { _, _ in
            signal.yield()
            return StubTransport.Reply.status(204).delayed(by: .seconds(600))
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let task = Task { try await manager.send(Patient(timeout: .seconds(60)), accessToken: nil) }
        var iterator = arrived.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("a timeout ends the request alone: the caller's task is not cancelled, and its next request goes through")
    func callerGoesOn() async throws {
        let stub = StubTransport { _, index in
            index == 0 ? StubTransport.Reply.status(204).delayed(by: .seconds(600)) : .status(204)
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let error = await #expect(throws: URLError.self) {
            try await manager.send(Patient(timeout: .milliseconds(50)), accessToken: nil)
        }
        #expect(error?.code == .timedOut)
        #expect(!Task.isCancelled)
        _ = try await manager.send(Patient(timeout: .seconds(30)), accessToken: nil)
    }
}

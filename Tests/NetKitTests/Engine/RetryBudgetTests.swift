import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

@Suite("Retry budget: retries stay a share of the traffic to each origin")
struct RetryBudgetTests {
    /// What a plugin saw of each request's end, and the budget events it was told.
    final class Witness: RequestObserver {
        struct Ending: Sendable {
            var attempts: Int
            var stopped: Bool
        }

        private let state = Lock((endings: [Ending](), exhausted: [String]()))

        var endings: [Ending] { state.withLock { $0.endings } }
        /// The origins named by every `retryBudgetExhausted` event, in order.
        var exhaustedOrigins: [String] { state.withLock { $0.exhausted } }

        func observe(_ event: RequestEvent) {
            guard case .retryBudgetExhausted(let origin) = event.kind else { return }
            state.withLock { $0.exhausted.append(origin.description) }
        }

        func didFinish(
            _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
            context: PluginContext
        ) async {
            let ending = Ending(attempts: metrics.attempts, stopped: metrics.retryBudgetExhausted)
            state.withLock { $0.endings.append(ending) }
        }
    }

    static let otherBase = URL(string: "https://other.test/v1")!

    /// A budget with the default numbers whose clock stands still: no window ends in the middle of a test on a busy
    /// machine, so the counts are exact (the ledger's tests walk the windows).
    static func frozenBudget() -> RetryBudget {
        let now = MonotonicInstant.now
        return RetryBudget(
            extraShare: 0.2, minimumRetries: 10, window: .seconds(10), maximumOrigins: 1_024, now: { now })
    }

    /// An engine configuration whose retry waits return at once, with a budget of its own (``frozenBudget()``).
    static func configuration(plugins: [any Plugin] = []) -> RequestExecutor.Configuration {
        var configuration = RequestExecutor.Configuration(plugins: plugins, clock: RecordingClock(), randomUnit: { 0 })
        configuration.retryBudget = frozenBudget()
        return configuration
    }

    /// Sends one GET that may retry 3 times to `base`; the number of sends it took. It must fail with the 503.
    static func sends(_ executor: RequestExecutor, _ stub: StubTransport, base: URL = stubBase) async -> Int {
        let before = stub.requestCount
        await #expect(throws: HTTPError.self) {
            try await executor.send(GetUser(retries: 3), baseURL: base)
        }
        return stub.requestCount - before
    }

    /// Spends the budget of `executor` for `stubBase`: 4 requests take the floor of 10 retries (3 + 3 + 3 + 1).
    static func spend(_ executor: RequestExecutor, _ stub: StubTransport) async {
        var sent: [Int] = []
        for _ in 0..<4 { sent.append(await sends(executor, stub)) }
        #expect(sent == [4, 4, 4, 2])
    }

    @Test("against a server that always answers 503, 10,000 requests send at most 12,000 times (the default budget)")
    func tenThousand() async throws {
        let stub = StubTransport { _, _ in .status(503) }
        let witness = Witness()
        let executor = RequestExecutor(transport: stub, configuration: Self.configuration(plugins: [witness]))
        let total = 10_000
        var statuses: [Int: Int] = [:]
        // 64 at a time: as many as a busy client has in flight, without 10,000 tasks at once.
        try await withThrowingTaskGroup(of: Int?.self) { group in
            var started = 0
            func start() {
                group.addTask {
                    do {
                        _ = try await executor.send(GetUser(retries: 3), baseURL: stubBase)
                        return nil
                    } catch let error as HTTPError {
                        return error.statusCode
                    }
                }
                started += 1
            }
            while started < min(64, total) { start() }
            while let status = try await group.next() {
                statuses[status ?? 200, default: 0] += 1
                if started < total { start() }
            }
        }
        #expect(statuses == [503: total], "every request fails with the 503's own error")
        let sent = stub.requestCount
        // 2,000 retries: 20 % of the 10,000 deposits, every one of them wanted.
        #expect(sent == 12_000)
        let endings = witness.endings
        #expect(endings.count == total)
        #expect(endings.reduce(0) { $0 + $1.attempts } == sent)
        // A request stops early exactly when the budget stopped it; otherwise its policy's 3 retries ran out.
        #expect(endings.filter { $0.stopped != ($0.attempts < 4) }.isEmpty)
        let stopped = endings.filter(\.stopped).count
        #expect(stopped >= total - 2_000 / 3, "at most 666 requests had their 3 retries: \(stopped) stopped")
        #expect(witness.exhaustedOrigins == Array(repeating: "https://api.test", count: stopped))
    }

    @Test("a configuration without a budget retries every time")
    func noBudget() async throws {
        let stub = StubTransport { _, _ in .status(503) }
        var configuration = Self.configuration()
        configuration.retryBudget = nil
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        for _ in 0..<50 { _ = await Self.sends(executor, stub) }
        #expect(stub.requestCount == 200)
    }

    @Test("a spent budget fails the request with its own error, and the metrics, the event and the log say why")
    func stoppedRequest() async throws {
        let stub = StubTransport { _, _ in .status(503) }
        let witness = Witness()
        let recorder = EventRecorder()
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: NetworkLogger.placeholderSubsystem, minimumLevel: .error) { _, line in
            lines.withLock { $0.append(line) }
        }
        let configuration = Self.configuration(plugins: [witness, recorder, LoggingPlugin(logger: logger)])
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        await Self.spend(executor, stub)
        let before = stub.requestCount
        do {
            _ = try await executor.send(GetUser(retries: 3), baseURL: stubBase)
            Issue.record("a 503 succeeded")
        } catch let error as HTTPError {
            #expect(error.statusCode == 503)
        }
        #expect(stub.requestCount - before == 1, "the retry the policy allowed was not sent")
        #expect(witness.endings.map(\.stopped) == [false, false, false, true, true])
        #expect(witness.exhaustedOrigins == ["https://api.test", "https://api.test"])
        let last = try #require(recorder.requestNumbers.last)
        #expect(
            recorder.kindNames(of: last).suffix(2) == ["retry_budget_exhausted", "call_failed"])
        #expect(RequestEventGrammar.violations(in: recorder.events).isEmpty)
        let failures = lines.withLock { $0 }
        #expect(failures.count == 5)
        #expect(failures.filter { $0.contains("retry budget") }.count == 2)
        #expect(
            failures.last?.contains("not retried: the retry budget of https://api.test is spent") == true,
            "\(failures)")
        #expect(failures.first?.contains("retry budget") == false, "a request whose retries ran out says nothing of it")
    }

    @Test("two configurations have budgets of their own; copies of one share it")
    func sharing() async throws {
        let defaults = RequestExecutor.Configuration()
        var copied = defaults
        copied.responseLimit = 1 << 20
        #expect(defaults.retryBudget != nil)
        #expect(copied.retryBudget === defaults.retryBudget)
        #expect(RequestExecutor.Configuration().retryBudget !== defaults.retryBudget)

        let stub = StubTransport { _, _ in .status(503) }
        let first = Self.configuration()
        let second = Self.configuration()
        var copy = first
        copy.responseLimit = 1 << 20
        await Self.spend(RequestExecutor(transport: stub, configuration: first), stub)
        #expect(await Self.sends(RequestExecutor(transport: stub, configuration: copy), stub) == 1)
        #expect(await Self.sends(RequestExecutor(transport: stub, configuration: second), stub) == 4)
    }

    @Test("a NetworkConfiguration sets the budget by its own name, and a manager keeps the one it is given")
    func facade() {
        var configuration = NetworkConfiguration(baseURL: stubBase)
        #expect(configuration.retryBudget === configuration.engine.retryBudget)
        #expect(configuration.retryBudget !== NetworkConfiguration(baseURL: stubBase).retryBudget)
        let budget = RetryBudget(extraShare: 0.1)
        configuration.retryBudget = budget
        #expect(NetworkManager(configuration: configuration).configuration.retryBudget === budget)
        configuration.retryBudget = nil
        #expect(NetworkManager(configuration: configuration).configuration.retryBudget == nil)
    }

    @Test("a spent budget of one host does not stop requests to another")
    func otherHost() async throws {
        let stub = StubTransport { _, _ in .status(503) }
        let executor = RequestExecutor(transport: stub, configuration: Self.configuration())
        await Self.spend(executor, stub)
        #expect(await Self.sends(executor, stub, base: Self.otherBase) == 4)
        #expect(await Self.sends(executor, stub) == 1)
    }

    @Test("a budget's numbers: the defaults, what is left, hostile values clamped")
    func numbers() async throws {
        for budget in [RetryBudget(), try #require(RequestExecutor.Configuration().retryBudget)] {
            #expect(budget.extraShare == 0.2)
            #expect(budget.minimumRetries == 10)
            #expect(budget.window == .seconds(10))
        }
        let budget = Self.frozenBudget()
        let origin = HTTPOrigin(scheme: "https", host: "api.test", port: nil)
        #expect(budget.availableRetries(for: origin) == 10)

        let stub = StubTransport { _, _ in .status(503) }
        var configuration = Self.configuration()
        configuration.retryBudget = budget
        await Self.spend(RequestExecutor(transport: stub, configuration: configuration), stub)
        #expect(budget.availableRetries(for: origin) == 0)

        let hostile = RetryBudget(extraShare: -1, minimumRetries: -1, window: .zero)
        #expect(hostile.extraShare == 0)
        #expect(hostile.minimumRetries == 0)
        #expect(hostile.window == .seconds(1))
        #expect(RetryBudget(extraShare: .nan).extraShare == 0)
    }
}

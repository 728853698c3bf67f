import Foundation
import NetKit
import NetKitLock
import NetKitTesting
import Testing

/// Queue limits on the engine's road, over the stub transport: at most N requests per host at the transport, the
/// rest waiting in order, a queue timeout that fails a waiter before the server is asked. Replies are held at gates,
/// and a test waits for the `queued` events it expects before it goes on: "waiting" and "in flight at the same time"
/// are facts of the test, not matters of timing.
@Suite("Queue limits per host (stub transport)", .timeLimit(.minutes(10)))
struct RequestQueueTests {
    static let origin = HTTPOrigin(scheme: "https", host: "api.test", port: nil)
    static let otherBase = URL(string: "https://other.test/v1")!
    static let userJSON = #"{"id":1,"name":"ann"}"#

    /// A `GET` that gives up after 100 ms of its own (``GetUser`` has no timeout).
    struct QuickUser: NetworkRequest {
        typealias Response = User
        var path: String { "/users/9" }
        var method: HTTPMethod { .get }
        var timeout: Duration? { .milliseconds(100) }
    }

    /// Tells the test, in order, each time a request starts to wait for a slot and each time a handler says a
    /// request reached the transport: the test waits for what it expects instead of for a while.
    final class Watcher: RequestObserver {
        enum Signal: Sendable, Equatable {
            case queued, arrived
        }

        let signals: AsyncStream<Signal>
        private let continuation: AsyncStream<Signal>.Continuation

        init() {
            (signals, continuation) = AsyncStream.makeStream(of: Signal.self)
        }

        func observe(_ event: RequestEvent) {
            if event.kind == .queued { continuation.yield(.queued) }
        }

        /// Called by a stub's handler: a request reached the transport.
        func arrived() { continuation.yield(.arrived) }
    }

    /// Holds the stub's handler calls until the test opens it, and counts how many are inside at once.
    final class Door: Sendable {
        private let counts = Lock((inside: 0, most: 0))
        private let opened: Task<Void, Never>
        private let opener: AsyncStream<Void>.Continuation

        init() {
            let (closed, opener) = AsyncStream.makeStream(of: Void.self)
            // Any number of calls can wait for a task's value; the task ends when the door is opened.
            opened = Task { for await _ in closed {} }
            self.opener = opener
        }

        /// The most calls that were inside at once.
        var most: Int { counts.withLock { $0.most } }

        func open() { opener.finish() }

        /// Counts the caller in, waits until the door is open, counts it out.
        func pass() async {
            counts.withLock { counts in
                counts.inside += 1
                counts.most = max(counts.most, counts.inside)
            }
            await opened.value
            counts.withLock { $0.inside -= 1 }
        }
    }

    /// An engine over `stub` with `limit` requests per host, told to `plugins`.
    static func executor(
        _ stub: StubTransport, limit: Int?, queueTimeout: Duration? = nil, plugins: [any Plugin] = []
    ) -> RequestExecutor {
        var configuration = RequestExecutor.Configuration(plugins: plugins)
        configuration.maximumRequestsPerHost = limit
        configuration.queueTimeout = queueTimeout
        return RequestExecutor(transport: stub, configuration: configuration)
    }

    /// Waits for the next request to start waiting for a slot.
    static func nextQueued(_ signals: inout AsyncStream<Watcher.Signal>.Iterator) async throws {
        try #require(await signals.next() == .queued)
    }

    @Test("with a limit of 2, ten requests at once never have more than 2 at the transport, and all succeed")
    func limitOfTwo() async throws {
        let door = Door()
        let watcher = Watcher()
        let stub = StubTransport { _, _ in
            watcher.arrived()
            await door.pass()
            return .json(Self.userJSON)
        }
        let executor = Self.executor(stub, limit: 2, plugins: [watcher])
        let queue = try #require(executor.configuration.requestQueue)
        let calls = (1...10).map { id in Task { try await executor.send(GetUser(id: id), baseURL: stubBase) } }
        // While the door is closed each request either reaches it or waits: ten signals, whatever the limit does.
        var signals: [Watcher.Signal] = []
        for await signal in watcher.signals {
            signals.append(signal)
            if signals.count == 10 { break }
        }
        // Two at the door, eight waiting: nothing more goes to the transport until a slot is given back.
        #expect(signals.filter { $0 == .arrived }.count == 2)
        #expect(signals.filter { $0 == .queued }.count == 8)
        #expect(stub.requestCount == 2)
        #expect(queue.held(Self.origin) == 2)
        #expect(queue.waiting == 8)
        door.open()
        for call in calls { #expect(try await call.value == User(id: 1, name: "ann")) }
        #expect(door.most == 2)
        #expect(stub.requestCount == 10)
        #expect(queue.held(Self.origin) == 0)
        #expect(queue.originCount == 0, "an origin with nothing held and nobody waiting is forgotten")
    }

    @Test("waiters are sent in the order they came")
    func arrivalOrder() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let watcher = Watcher()
        let executor = Self.executor(stub, limit: 1, plugins: [watcher])
        var queued = watcher.signals.makeAsyncIterator()
        var calls = [Task { try await executor.send(GetUser(id: 1), baseURL: stubBase) }]
        await gate.waitForArrivals(1)
        // Each waiter is known to be in the line before the next one starts.
        for id in [5, 2, 4, 3] {
            calls.append(Task { try await executor.send(GetUser(id: id), baseURL: stubBase) })
            try await Self.nextQueued(&queued)
        }
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(stub.requests.map(\.head.path) == [1, 5, 2, 4, 3].map { "/v1/users/\($0)" })
    }

    @Test("a request cancelled while it waits ends with CancellationError, and frees no slot it did not hold")
    func cancelledWhileQueued() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let watcher = Watcher()
        let recorder = EventRecorder()
        let executor = Self.executor(stub, limit: 1, plugins: [watcher, recorder])
        let queue = try #require(executor.configuration.requestQueue)
        var queued = watcher.signals.makeAsyncIterator()
        let holder = Task { try await executor.send(GetUser(id: 1), baseURL: stubBase) }
        await gate.waitForArrivals(1)
        let cancelled = Task { try await executor.send(GetUser(id: 2), baseURL: stubBase) }
        try await Self.nextQueued(&queued)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.waiting == 0)
        #expect(queue.held(Self.origin) == 1, "the holder's slot is still the holder's")
        // Had the cancelled waiter freed a slot, this one would go to the transport now instead of waiting.
        let next = Task { try await executor.send(GetUser(id: 3), baseURL: stubBase) }
        try await Self.nextQueued(&queued)
        #expect(stub.requestCount == 1)
        gate.open()
        _ = try await holder.value
        _ = try await next.value
        #expect(stub.requests.map(\.head.path) == ["/v1/users/1", "/v1/users/3"])
        #expect(queue.held(Self.origin) == 0)
        #expect(queue.originCount == 0)
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
    }

    @Test("past the queue timeout a waiter fails with QueueTimeoutError naming host and limit; the server never saw it")
    func queueTimeout() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let recorder = EventRecorder()
        let executor = Self.executor(stub, limit: 1, queueTimeout: .milliseconds(100), plugins: [recorder])
        let queue = try #require(executor.configuration.requestQueue)
        let holder = Task { try await executor.send(GetUser(id: 1), baseURL: stubBase) }
        await gate.waitForArrivals(1)
        let error = await #expect(throws: QueueTimeoutError.self) {
            try await executor.send(GetUser(id: 2), baseURL: stubBase)
        }
        #expect(error?.origin == Self.origin)
        #expect(error?.limit == 1)
        #expect((error?.waited ?? .zero) >= .milliseconds(100))
        let description = String(describing: error)
        #expect(description.contains("api.test:443"), "\(description)")
        #expect(description.contains("maximumRequestsPerHost is 1"), "\(description)")
        #expect(description.contains("the server was never asked"), "\(description)")
        #expect(stub.requestCount == 1, "the stub never saw the request that timed out")
        #expect(queue.waiting == 0)
        #expect(queue.held(Self.origin) == 1)
        gate.open()
        _ = try await holder.value
        #expect(stub.requestCount == 1)
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
        let timedOut = try #require(recorder.requestNumbers.last)
        #expect(
            recorder.kindNames(of: timedOut) == [
                "call_start", "attempt_start", "queued", "dequeued", "attempt_failed", "call_failed",
            ])
        let holderNumber = try #require(recorder.requestNumbers.first)
        #expect(!recorder.kindNames(of: holderNumber).contains("queued"), "the holder found its slot free")
    }

    @Test("a retry policy does not retry a QueueTimeoutError")
    func notRetried() async throws {
        #expect(!RetryPolicy.isTransient(QueueTimeoutError(origin: Self.origin, limit: 1, waited: .seconds(1))))
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let recorder = EventRecorder()
        let executor = Self.executor(stub, limit: 1, queueTimeout: .milliseconds(100), plugins: [recorder])
        let holder = Task { try await executor.send(GetUser(id: 1), baseURL: stubBase) }
        await gate.waitForArrivals(1)
        await #expect(throws: QueueTimeoutError.self) {
            try await executor.send(GetUser(id: 2, retries: 3), baseURL: stubBase)
        }
        gate.open()
        _ = try await holder.value
        let retried = try #require(recorder.requestNumbers.last)
        let names = recorder.kindNames(of: retried)
        #expect(names.filter { $0 == "attempt_start" }.count == 1, "\(names)")
        #expect(!names.contains("retry_scheduled"), "\(names)")
        #expect(stub.requestCount == 1)
    }

    @Test("without a queue timeout, the request's own timeout ends its wait, and the slot held stays held")
    func ownTimeoutEndsTheWait() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let executor = Self.executor(stub, limit: 1)
        let queue = try #require(executor.configuration.requestQueue)
        let holder = Task { try await executor.send(GetUser(id: 1), baseURL: stubBase) }
        await gate.waitForArrivals(1)
        let error = await #expect(throws: TransportError.self) {
            try await executor.send(QuickUser(), baseURL: stubBase)
        }
        #expect(error?.kind == .timedOut)
        #expect(queue.waiting == 0)
        #expect(queue.held(Self.origin) == 1)
        gate.open()
        _ = try await holder.value
        #expect(stub.requestCount == 1)
    }

    @Test("two hosts do not share slots")
    func hostsApart() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let executor = Self.executor(stub, limit: 1)
        let queue = try #require(executor.configuration.requestQueue)
        let calls = [stubBase, Self.otherBase].map { base in
            Task { try await executor.send(GetUser(), baseURL: base) }
        }
        // Both are at the transport at once: neither waits for the other's host.
        await gate.waitForArrivals(2)
        #expect(queue.waiting == 0)
        #expect(queue.held(Self.origin) == 1)
        #expect(queue.held(HTTPOrigin(scheme: "https", host: "other.test", port: nil)) == 1)
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(queue.originCount == 0)
    }

    @Test("a stream gives its slot back once the head has arrived, before its body is read")
    func streamFreesAtHead() async throws {
        let stub = StubTransport { _, _ in .json(Self.userJSON) }
        let recorder = EventRecorder()
        let executor = Self.executor(stub, limit: 1, plugins: [recorder])
        let queue = try #require(executor.configuration.requestQueue)
        let (response, _) = try await executor.streamingResponse(for: GetUser(id: 1), baseURL: stubBase)
        #expect(queue.held(Self.origin) == 0, "the body is unread, and the slot is free")
        #expect(try await executor.send(GetUser(id: 2), baseURL: stubBase) == User(id: 1, name: "ann"))
        #expect(try await response.body.collect(upTo: 1_024) == Data(Self.userJSON.utf8))
        #expect(!recorder.events.contains { $0.kind == .queued }, "nothing waited")
    }

    @Test("without the setting nothing waits: ten requests are at the transport at once")
    func noLimit() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.userJSON).held(by: gate) }
        let recorder = EventRecorder()
        let executor = Self.executor(stub, limit: nil, queueTimeout: .milliseconds(1), plugins: [recorder])
        #expect(executor.configuration.requestQueue == nil)
        let calls = (1...10).map { id in Task { try await executor.send(GetUser(id: id), baseURL: stubBase) } }
        await gate.waitForArrivals(10)
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(!recorder.events.contains { $0.kind == .queued })
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
    }

    @Test("copies of a configuration share its slots; a new limit starts a line of its own")
    func copiesShare() throws {
        var configuration = RequestExecutor.Configuration()
        #expect(configuration.maximumRequestsPerHost == nil && configuration.requestQueue == nil)
        configuration.maximumRequestsPerHost = 0
        let queue = try #require(configuration.requestQueue)
        #expect(queue.maximumPerOrigin == 1, "a value below 1 counts as 1")
        let copy = configuration
        #expect(copy.requestQueue === queue)
        configuration.maximumRequestsPerHost = 0
        #expect(configuration.requestQueue === queue, "setting the same value keeps the line")
        configuration.queueTimeout = .seconds(1)
        #expect(configuration.requestQueue !== queue)
        #expect(configuration.requestQueue?.queueTimeout == .seconds(1))
        #expect(copy.requestQueue === queue, "a copy made before keeps its own")
        configuration.maximumRequestsPerHost = nil
        #expect(configuration.requestQueue == nil)
    }

    @Test("the error says, in words, what waited, for what, and what to change")
    func errorText() {
        let origin = HTTPOrigin(scheme: "https", host: "api.example.com", port: nil)
        #expect(
            QueueTimeoutError(origin: origin, limit: 8, waited: .seconds(2)).description
                == "Waited 2 s for one of the 8 request slots of api.example.com:443 "
                + "(RequestExecutor.Configuration.maximumRequestsPerHost); the server was never asked. "
                + "Raise the limit or the queueTimeout, or send fewer requests at once.")
        let one = QueueTimeoutError(origin: Self.origin, limit: 1, waited: .milliseconds(100))
        #expect(one.description.hasPrefix("Waited 100 ms for the only request slot of api.test:443 "))
        #expect(one.localizedDescription == one.description)
        let local = QueueTimeoutError(
            origin: HTTPOrigin(scheme: "http", host: "::1", port: 8080), limit: 2, waited: .milliseconds(2_500))
        #expect(local.description.hasPrefix("Waited 2.5 s for one of the 2 request slots of [::1]:8080 "))
    }
}

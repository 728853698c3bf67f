import Foundation
import Synchronization
import Testing
@testable import NetKit
import NetKitTesting

/// Coalescing on the engine's road, over the stub transport. Replies are held at a gate and released only once
/// the callers are known to wait for the call (``RequestCoalescer/waitUntilWaiting(_:)``): "in flight at the
/// same time" is a fact of the test, not a matter of timing.
@Suite("Coalescing identical requests (stub transport)", .timeLimit(.minutes(10)))
struct CoalescingTests {
    struct Item: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    struct GetItem: NetworkRequest {
        typealias Response = Item
        var method: HTTPMethod = .get
        var headers: [String: String]? = nil
        var progress: NetworkProgress? = nil
        var path: String { "/items/1" }
    }

    struct CreateItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/items" }
        var method: HTTPMethod { .post }
    }

    struct HeadItem: NetworkRequest {
        typealias Response = StatusCodeResponse
        var path: String { "/items/1" }
        var method: HTTPMethod { .head }
    }

    static let itemJSON = #"{"id":1,"name":"ann"}"#

    /// A manager with coalescing on, and the registry its `send` uses.
    static func manager(_ stub: StubTransport) throws -> (NetworkManager, RequestCoalescer) {
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.coalescesIdenticalRequests = true
        let coalescer = try #require(manager.makeExecutor(streaming: false).0.coalescer)
        return (manager, coalescer)
    }

    @Test("identical GETs in flight at once share one transport call; each caller gets its value and its progress ends")
    func shareOneCall() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.itemJSON).held(by: gate) }
        let (manager, coalescer) = try Self.manager(stub)
        let progresses = (0..<5).map { _ in NetworkProgress() }
        let callers = progresses.map { progress in
            Task { try await manager.send(GetItem(progress: progress)) }
        }
        await coalescer.waitUntilWaiting(5)
        await gate.waitForArrivals(1)
        gate.open()
        for caller in callers { #expect(try await caller.value == Item(id: 1, name: "ann")) }
        #expect(stub.requestCount == 1)
        #expect(coalescer.callsStarted == 1)
        #expect(progresses.allSatisfy { $0.outcome == .completed && $0.fractionCompleted == 1 })
        // Once the call has ended, the next identical request calls again.
        _ = try await manager.send(GetItem())
        #expect(stub.requestCount == 2)
    }

    @Test("a cancelled caller gets CancellationError at once, even the one that started the call; the others go on")
    func oneCallerCancels() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.itemJSON).held(by: gate) }
        let (manager, coalescer) = try Self.manager(stub)
        let starter = Task { try await manager.send(GetItem()) }
        await coalescer.waitUntilWaiting(1)
        let others = (0..<3).map { _ in Task { try await manager.send(GetItem()) } }
        await coalescer.waitUntilWaiting(4)
        starter.cancel()
        // The reply is still held: the cancelled caller's error cannot be waiting for it.
        await #expect(throws: CancellationError.self) { try await starter.value }
        #expect(coalescer.waitingCallers == 3)
        gate.open()
        for other in others { #expect(try await other.value == Item(id: 1, name: "ann")) }
        #expect(stub.requestCount == 1)
    }

    @Test("the shared call is cancelled only when every caller has cancelled")
    func everyCallerCancels() async throws {
        let (cancelled, signal) = AsyncStream.makeStream(of: Void.self)
        let (never, keepOpen) = AsyncStream.makeStream(of: Void.self)
        defer { keepOpen.finish() }
        let stub = StubTransport { _, _ in
            for await _ in never {}
            // The stream ends without an element only when the task is cancelled.
            signal.yield()
            throw CancellationError()
        }
        let (manager, coalescer) = try Self.manager(stub)
        let callers = (0..<3).map { _ in Task { try await manager.send(GetItem()) } }
        await coalescer.waitUntilWaiting(3)
        callers[0].cancel()
        callers[1].cancel()
        for caller in callers.prefix(2) { await #expect(throws: CancellationError.self) { try await caller.value } }
        #expect(coalescer.waitingCallers == 1, "one caller left: the call goes on")
        callers[2].cancel()
        await #expect(throws: CancellationError.self) { try await callers[2].value }
        var iterator = cancelled.makeAsyncIterator()
        #expect(await iterator.next() != nil, "the transport call saw the cancellation")
        #expect(coalescer.waitingCallers == 0)
    }

    @Test("requests that differ in a header or the credential, and POSTs, do not share")
    func onlyIdenticalShare() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.itemJSON).held(by: gate) }
        let (manager, _) = try Self.manager(stub)
        let calls = [
            Task { _ = try await manager.send(GetItem(), accessToken: { "ann" }) },
            Task { _ = try await manager.send(GetItem(), accessToken: { "bob" }) },
            Task { _ = try await manager.send(GetItem(headers: ["X-Trace": "1"]), accessToken: { "ann" }) },
            Task { _ = try await manager.send(CreateItem()) },
            Task { _ = try await manager.send(CreateItem()) },
        ]
        await gate.waitForArrivals(5)
        gate.open()
        for call in calls { try await call.value }
        #expect(stub.requestCount == 5)
    }

    @Test("HEAD requests share too; a failure is every caller's")
    func headAndFailures() async throws {
        let gate = StubGate()
        let stub = StubTransport { request, _ in
            request.method == .head
                ? .status(200).held(by: gate)
                : StubTransport.Reply.failure(TransportError(.connectionLost)).held(by: gate)
        }
        let (manager, coalescer) = try Self.manager(stub)
        let heads = (0..<3).map { _ in Task { try await manager.send(HeadItem()) } }
        let gets = (0..<3).map { _ in Task { try await manager.send(GetItem()) } }
        await coalescer.waitUntilWaiting(6)
        gate.open()
        for head in heads { #expect(try await head.value.statusCode == 200) }
        for get in gets { await #expect(throws: URLError.self) { try await get.value } }
        #expect(stub.requestCount == 2)
    }

    @Test("off by default: identical requests each reach the transport")
    func offByDefault() async throws {
        let gate = StubGate()
        let stub = StubTransport { _, _ in .json(Self.itemJSON).held(by: gate) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        #expect(!manager.coalescesIdenticalRequests)
        let calls = (0..<3).map { _ in Task { try await manager.send(GetItem()) } }
        await gate.waitForArrivals(3)
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(stub.requestCount == 3)
    }

    @Test("copies of an engine share its calls in flight; switching it off drops the registry")
    func executorCopies() {
        var executor = RequestExecutor(transport: StubTransport())
        executor.coalescesIdenticalRequests = true
        let copy = executor
        #expect(copy.coalescer === executor.coalescer)
        executor.coalescesIdenticalRequests = true
        #expect(copy.coalescer === executor.coalescer, "setting it on again keeps the registry")
        executor.coalescesIdenticalRequests = false
        #expect(executor.coalescer == nil)
    }
}

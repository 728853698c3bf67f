import Foundation
import NetKitLock
import Testing
@testable import NetKit
import NetKitTesting

/// Collects a completion handler's calls: how many, and each result, in order.
final class CompletionRecorder<Value: Sendable>: Sendable {
    private let calls = Lock(0)
    private let results: AsyncStream<Result<Value, any Error>>
    private let continuation: AsyncStream<Result<Value, any Error>>.Continuation

    init() {
        (results, continuation) = AsyncStream.makeStream()
    }

    var count: Int { calls.withLock { $0 } }

    /// The completion handler to pass.
    var completion: @Sendable (Result<Value, any Error>) -> Void {
        { [self] result in
            calls.withLock { $0 += 1 }
            continuation.yield(result)
        }
    }

    /// The next result the completion received (waits for it).
    func next() async -> Result<Value, any Error>? {
        var iterator = results.makeAsyncIterator()
        return await iterator.next()
    }
}

/// A stub whose replies wait until the test opens a gate, and which says when each request has arrived.
final class GatedStub: Sendable {
    let transport: StubTransport
    private let arrivals: AsyncStream<Void>
    private let release: AsyncStream<Void>.Continuation

    init(reply: StubTransport.Reply = .json(#"{"id":1,"name":"ann"}"#)) {
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let (gate, release) = AsyncStream.makeStream(of: Void.self)
        self.arrivals = arrivals
        self.release = release
        transport = StubTransport { _, _ in
            arrived.yield()
            for await _ in gate {}
            return reply
        }
    }

    /// Waits until the next request reaches the transport.
    func waitForArrival() async {
        var iterator = arrivals.makeAsyncIterator()
        await iterator.next()
    }

    /// Lets every waiting (and later) request have its reply.
    func open() { release.finish() }
}

/// Marks the code inside a call: a completion run within that call would see it.
private enum Marker {
    @TaskLocal static var insideCancel = false
}

@Suite("Completion handlers and NetworkTask")
struct NetworkTaskTests {
    @Test("the completion receives the decoded value once; the task starts at once")
    func success() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let recorder = CompletionRecorder<User>()
        let task = manager.send(GetUser(), accessToken: { "tok" }, completion: recorder.completion)
        let result = try #require(await recorder.next())
        #expect(try result.get() == User(id: 1, name: "ann"))
        await task.waitUntilEnded()
        #expect(recorder.count == 1)
        #expect(!task.isCancelled)
        #expect(stub.requests.first?.bearer == "Bearer tok")
    }

    @Test("a failure reaches the completion as the error send would throw")
    func failure() async throws {
        let stub = StubTransport(replies: [.json(#"{"message":"taken"}"#, status: 409)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let recorder = CompletionRecorder<User>()
        let task = manager.send(CreateUser(), completion: recorder.completion)
        let result = try #require(await recorder.next())
        #expect(throws: APIError(message: "taken")) { try result.get() }
        await task.waitUntilEnded()
        #expect(recorder.count == 1)
    }

    @Test("cancel() in flight: the completion receives CancellationError once, and the late outcome is dropped")
    func cancelInFlight() async throws {
        let stub = GatedStub()
        let manager = NetworkManager(baseURL: stubBase, transport: stub.transport)
        let recorder = CompletionRecorder<User>()
        let task = manager.send(GetUser(), completion: recorder.completion)
        await stub.waitForArrival()
        task.cancel()
        #expect(task.isCancelled)
        let result = try #require(await recorder.next())
        #expect(throws: CancellationError.self) { try result.get() }
        stub.open()
        await task.waitUntilEnded()
        task.cancel()
        #expect(recorder.count == 1)
    }

    @Test("cancel() never runs the completion inside its own call")
    func cancelDeliversLater() async throws {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(204) })
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let task = manager.send(DeleteUser(), options: .deferredStart) { _ in continuation.yield(Marker.insideCancel) }
        Marker.$insideCancel.withValue(true) { task.cancel() }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == false)
    }

    @Test("cancel() after the completion ran does nothing")
    func cancelAfterEnd() async throws {
        let manager = NetworkManager(
            baseURL: stubBase, transport: StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)]))
        let recorder = CompletionRecorder<User>()
        let task = manager.send(GetUser(), completion: recorder.completion)
        _ = await recorder.next()
        task.cancel()
        await task.waitUntilEnded()
        #expect(!task.isCancelled)
        #expect(recorder.count == 1)
    }

    @Test("a deferred task sends nothing until start(), then runs as usual; start() twice sends once")
    func deferredStart() async throws {
        let stub = StubTransport { _, _ in .json(#"{"id":1,"name":"ann"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let recorder = CompletionRecorder<User>()
        let task = manager.send(GetUser(id: 2), options: .deferredStart, completion: recorder.completion)
        // Another request through the same transport goes and comes back while the deferred one waits.
        _ = try await manager.send(GetUser(id: 1))
        await task.waitUntilEnded()
        #expect(stub.requests.map(\.head.path) == ["/v1/users/1"])
        #expect(recorder.count == 0)
        task.start()
        task.start()
        let result = try #require(await recorder.next())
        #expect(try result.get().id == 1)
        await task.waitUntilEnded()
        #expect(stub.requests.map(\.head.path) == ["/v1/users/1", "/v1/users/2"])
        #expect(recorder.count == 1)
    }

    @Test("cancelling a deferred task before start(): CancellationError, and start() then sends nothing")
    func cancelBeforeStart() async throws {
        let stub = StubTransport { _, _ in .json(#"{"id":1,"name":"ann"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let recorder = CompletionRecorder<User>()
        let task = manager.send(GetUser(), options: .deferredStart, completion: recorder.completion)
        task.cancel()
        task.start()
        let result = try #require(await recorder.next())
        #expect(throws: CancellationError.self) { try result.get() }
        await task.waitUntilEnded()
        #expect(stub.requestCount == 0)
        #expect(recorder.count == 1)
    }

    @Test("with .cancelsOnRelease, releasing the handle cancels the request")
    func releaseCancels() async throws {
        let stub = GatedStub()
        let manager = NetworkManager(baseURL: stubBase, transport: stub.transport)
        let recorder = CompletionRecorder<User>()
        var task: NetworkTask? = manager.send(GetUser(), options: .cancelsOnRelease, completion: recorder.completion)
        await stub.waitForArrival()
        #expect(task != nil)
        task = nil
        let result = try #require(await recorder.next())
        #expect(throws: CancellationError.self) { try result.get() }
        stub.open()
    }

    @Test("with .cancelsOnRelease and detach(), the request runs to its end after the handle is released")
    func detachedKeepsRunning() async throws {
        let stub = GatedStub()
        let manager = NetworkManager(baseURL: stubBase, transport: stub.transport)
        let recorder = CompletionRecorder<User>()
        var task: NetworkTask? = manager.send(GetUser(), options: .cancelsOnRelease, completion: recorder.completion)
        task?.detach()
        await stub.waitForArrival()
        task = nil
        stub.open()
        let result = try #require(await recorder.next())
        #expect(try result.get() == User(id: 1, name: "ann"))
    }

    @Test("by default a released handle does not cancel: the request completes")
    func releasedByDefaultKeepsRunning() async throws {
        let stub = GatedStub()
        let manager = NetworkManager(baseURL: stubBase, transport: stub.transport)
        let recorder = CompletionRecorder<User>()
        manager.send(GetUser(), completion: recorder.completion)
        await stub.waitForArrival()
        stub.open()
        let result = try #require(await recorder.next())
        #expect(try result.get().name == "ann")
    }

    @Test("a deferred task released before start() is cancelled: CancellationError, nothing sent")
    func deferredReleased() async throws {
        let stub = StubTransport { _, _ in .json(#"{"id":1,"name":"ann"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let recorder = CompletionRecorder<User>()
        manager.send(GetUser(), options: .deferredStart, completion: recorder.completion)
        let result = try #require(await recorder.next())
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(stub.requestCount == 0)
    }

    @Test("the completion does not run on the main actor, even when the request is sent from it")
    @MainActor
    func completionOffMain() async throws {
        let manager = NetworkManager(
            baseURL: stubBase, transport: StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)]))
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        manager.send(GetUser()) { _ in continuation.yield(Thread.isMainThread) }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == false)
    }

    @Test("the completion-handler send takes the manager's road: plugins and retries apply")
    func sameRoad() async throws {
        let stub = StubTransport(replies: [.status(503), .json(#"{"id":1,"name":"ann"}"#)])
        let tenant = InterceptorPlugin(request: { request in
            var request = request
            try request.setHeader("X-Tenant", "acme")
            return request
        })
        let manager = NetworkManager(baseURL: stubBase, transport: stub, plugins: [tenant])
        let recorder = CompletionRecorder<User>()
        manager.send(GetUser(retries: 1), completion: recorder.completion)
        let result = try #require(await recorder.next())
        #expect(try result.get().id == 1)
        #expect(stub.requests.map { $0.value(forHeader: "X-Tenant") } == ["acme", "acme"])
    }
}

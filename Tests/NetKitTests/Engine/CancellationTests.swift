import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Cancellation over the stub transport")
struct CancellationTests {
    @Test("cancelling the caller's task ends a slow request with CancellationError")
    func cancelSlowRequest() async throws {
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let stub = StubTransport { _, _ in
            signal.yield()
            return StubTransport.Reply.json("{}").delayed(by: .seconds(600))
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let task = Task { try await manager.send(GetUser(), accessToken: nil) }
        var iterator = arrived.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("cancelling during a retry delay ends the wait at once")
    func cancelDuringRetryDelay() async throws {
        struct Patient: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/x" }
            var method: HTTPMethod { .get }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 600) }
        }
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let stub = StubTransport { _, _ in
            signal.yield()
            return .status(503)
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let task = Task { try await manager.send(Patient(), accessToken: nil) }
        var iterator = arrived.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(stub.requestCount == 1)
    }

    @Test("a task cancelled before sending sends nothing")
    func cancelledBeforeSending() async throws {
        let stub = StubTransport(replies: [.status(200)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.send(DeleteUser(), accessToken: nil)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(stub.requestCount == 0)
    }
}

import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Progress ends with the request")
struct ProgressOutcomeTests {
    struct Upload: NetworkRequest {
        typealias Response = EmptyResponse
        let progress: NetworkProgress?
        var path: String { "/upload" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { RequestBody(data: Data(count: 1000), contentType: "application/octet-stream") }
    }

    func updates(of progress: NetworkProgress) -> Task<[Double], Never> {
        let stream = progress.updates
        return Task {
            var seen: [Double] = []
            for await value in stream { seen.append(value) }
            return seen
        }
    }

    @Test("success: updates finish after exactly 1.0, outcome completed")
    func success() async throws {
        let progress = NetworkProgress()
        let seen = updates(of: progress)
        _ = try await NetworkManager(baseURL: stubBase, transport: StubTransport(replies: [.status(204)])).send(
            Upload(progress: progress), accessToken: nil)
        #expect(await seen.value.last == 1.0)
        #expect(progress.outcome == .completed)
    }

    @Test("failure: updates finish below 1.0, outcome failed")
    func failure() async throws {
        let progress = NetworkProgress()
        let seen = updates(of: progress)
        await #expect(throws: HTTPError.self) {
            try await NetworkManager(baseURL: stubBase, transport: StubTransport(replies: [.status(500)])).send(
                Upload(progress: progress), accessToken: nil)
        }
        let values = await seen.value
        #expect(values.allSatisfy { $0 < 1.0 })
        #expect(progress.outcome == .failed)
        #expect(!progress.isFinished)
    }

    @Test("cancellation: updates finish, outcome cancelled")
    func cancellation() async throws {
        let progress = NetworkProgress()
        let seen = updates(of: progress)
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let stub = StubTransport { _, _ in
            signal.yield()
            return StubTransport.Reply.status(204).delayed(by: .seconds(600))
        }
        let task = Task {
            try await NetworkManager(baseURL: stubBase, transport: stub).send(
                Upload(progress: progress), accessToken: nil)
        }
        var iterator = arrived.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        _ = await seen.value
        #expect(progress.outcome == .cancelled)
    }
}

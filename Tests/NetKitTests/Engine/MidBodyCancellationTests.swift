import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import NetKit

@Suite("Cancellation in the middle of a body")
struct MidBodyCancellationTests {
    struct Custom: NetworkRequest {
        struct Length: Decodable { let count: Int }
        typealias Response = Length
        let progress: NetworkProgress?
        var path: String { "/custom" }
        var method: HTTPMethod { .get }
        func decodeResponse(data: Data, response: URLResponse) throws -> Length { Length(count: data.count) }
    }

    struct Empty: NetworkRequest {
        typealias Response = EmptyResponse
        let progress: NetworkProgress?
        var path: String { "/empty" }
        var method: HTTPMethod { .get }
    }

    struct Status: NetworkRequest {
        typealias Response = StatusCodeResponse
        let progress: NetworkProgress?
        var path: String { "/status" }
        var method: HTTPMethod { .get }
    }

    /// Sends through a body that stays open, cancels once the request reached the transport, and returns how
    /// the request and its progress ended.
    func cancelMidBody<R: NetworkRequest & Sendable>(_ make: (NetworkProgress) -> R) async -> (any Error)?
    where R.Response: Sendable {
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        let transport = OpenBodyTransport(status: 200, firstChunk: Data("partial".utf8), reached: signal)
        let manager = NetworkManager(baseURL: stubBase, transport: transport)
        let progress = NetworkProgress()
        let request = make(progress)
        let task = Task { _ = try await manager.send(request, accessToken: nil) }
        var iterator = reached.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        do {
            try await task.value
            return nil
        } catch {
            #expect(progress.fractionCompleted < 1.0)
            #expect(progress.outcome == .cancelled)
            var updates: [Double] = []
            for await value in progress.updates { updates.append(value) }
            #expect(updates.count == 1)
            return error
        }
    }

    @Test("EmptyResponse, StatusCodeResponse and a custom decodeResponse never succeed with a cut-off body")
    func neverSucceeds() async {
        #expect(await cancelMidBody { Empty(progress: $0) } is CancellationError)
        #expect(await cancelMidBody { Status(progress: $0) } is CancellationError)
        #expect(await cancelMidBody { Custom(progress: $0) } is CancellationError)
    }
}

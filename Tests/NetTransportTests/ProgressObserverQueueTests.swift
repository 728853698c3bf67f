import Foundation
import LoopbackServer
import NetCore
import NetTransport
import Observation
import Synchronization
import Testing

/// Progress observers run user code; on Linux every URLSession's work queue targets one serial queue for the whole
/// process, so an observer run there that takes its time would stall every transfer of every session.
@Suite("URLSession transport: progress observers off the work queue", .timeLimit(.minutes(10)))
struct ProgressObserverQueueTests {
    @Test("an observer that blocks does not stall another session's transfer, and its request still completes")
    func blockedObserver() async throws {
        let server = try LoopbackServer { request in
            request.path == "/large" ? .patterned(byteCount: 4 << 20) : .text("ok")
        }
        defer { server.stop() }
        let progress = NetworkProgress()
        progress.follow(.download)
        let release = DispatchSemaphore(value: 0)
        let (blocked, signal) = AsyncStream.makeStream(of: Void.self)
        withObservationTracking {
            _ = progress.fractionCompleted
        } onChange: {
            signal.yield()
            // Held until the other transfer has finished (bounded, so a failure cannot hang the process).
            _ = release.wait(timeout: .now() + 30)
        }
        let observed = URLSessionTransport()
        let request = TransportRequest(
            head: try HTTPRequestHead(method: .get, url: server.baseURL.appending(path: "large")), progress: progress)
        let first = Task { try await observed.send(request) }
        var signals = blocked.makeAsyncIterator()
        await signals.next()
        // Before the fix the observer ran on the shared work queue, and this waited for the observer's 30 s.
        let other = try await URLSessionTransport().send(
            TransportRequest(head: try HTTPRequestHead(method: .get, url: server.baseURL)))
        let released = release.signal()
        #expect(try await other.body.collect(upTo: 10) == Data("ok".utf8))
        #expect(released == 1, "the observer was still blocked when the other transfer finished")
        let response = try await first.value
        #expect(try await response.body.collect(upTo: 8 << 20).count == 4 << 20)
    }
}

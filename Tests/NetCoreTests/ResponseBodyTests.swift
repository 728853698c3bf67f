import Foundation
import Testing
import NetCore

@Suite("Response body collection")
struct ResponseBodyTests {
    @Test("a huge declared length reserves little and does not fail a short body")
    func lyingLength() async throws {
        // Before the fix this reserved the declared terabyte up front and the process died.
        let data = try await ResponseBody(data: Data("ok".utf8)).collect(upTo: Int.max, expectedLength: 1 << 40)
        #expect(data == Data("ok".utf8))
    }

    @Test("a body longer than the limit fails as it arrives")
    func limit() async throws {
        let body = ResponseBody(
            AsyncThrowingStream { continuation in
                for _ in 0..<4 { continuation.yield(Data(count: 100)) }
                continuation.finish()
            })
        await #expect(throws: NetworkError.responseTooLarge(limitBytes: 250)) { try await body.collect(upTo: 250) }
    }

    @Test("collectPrefix keeps exactly the limit and says the body was cut")
    func prefix() async throws {
        func body() -> ResponseBody {
            ResponseBody(
                AsyncThrowingStream { continuation in
                    for byte in UInt8(0)..<3 { continuation.yield(Data(repeating: byte, count: 4)) }
                    continuation.finish()
                })
        }
        let cut = try await body().collectPrefix(upTo: 6)
        #expect(cut.data == Data([0, 0, 0, 0, 1, 1]))
        #expect(cut.isTruncated)
        let whole = try await body().collectPrefix(upTo: 12)
        #expect(whole.data.count == 12)
        #expect(!whole.isTruncated)
    }

    @Test("a body whose consumer is cancelled ends in CancellationError, never as if complete")
    func cancelled() async throws {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let (delivered, signal) = AsyncStream.makeStream(of: Void.self)
        continuation.yield(Data("partial".utf8))
        let body = ResponseBody(stream)
        let task = Task {
            var data = Data()
            for try await chunk in body {
                data.append(chunk)
                signal.yield()
            }
            return data
        }
        var iterator = delivered.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        continuation.finish()
    }

    @Test(
        "a consumer cancelled mid-body abandons the transfer once it lets go of the iterator",
        arguments: ["sequence", "buffered"])
    func cancelledConsumerAbandons(kind: String) async throws {
        let (abandoned, abandon) = AsyncStream.makeStream(of: Void.self)
        let (delivered, signal) = AsyncStream.makeStream(of: Void.self)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let body: ResponseBody
        if kind == "sequence" {
            continuation.yield(Data("partial".utf8))
            body = ResponseBody(stream, onAbandon: { abandon.yield() })
        } else {
            let (buffered, writer) = ResponseBody.makeBuffered { abandon.yield() }
            writer.yield(Data("partial".utf8))
            body = buffered
        }
        let task = Task {
            for try await _ in body { signal.yield() }
        }
        var deliveries = delivered.makeAsyncIterator()
        await deliveries.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The iterator is gone with the task: the transport has been told to stop.
        var abandonments = abandoned.makeAsyncIterator()
        await abandonments.next()
        continuation.finish()
    }
}

import Foundation
import NetCore
import Testing
@testable import NetStreaming

@Suite("Chunking a per-byte stream")
struct ByteStreamChunkerTests {
    @Test(
        "the producer never buffers more than the high-water mark: it waits for the reader, and every byte arrives in order"
    )
    func backpressure() async throws {
        let count = 10_000
        let source = AsyncThrowingStream<UInt8, any Error> { continuation in
            for index in 0..<count { continuation.yield(UInt8(truncatingIfNeeded: index)) }
            continuation.finish()
        }
        let chunker = ByteStreamChunker(source, highWaterMark: 16)
        var received: [UInt8] = []
        var reads = 0
        while let chunk = try await chunker.next(), reads < count + 1 {
            reads += 1
            #expect(!chunk.isEmpty && chunk.count <= 16)
            received.append(contentsOf: chunk)
        }
        #expect(received == (0..<count).map { UInt8(truncatingIfNeeded: $0) })
        #expect(try await chunker.next() == nil)
    }

    @Test("the end is reported once: after nil, next() stays nil; after an error, next() is nil")
    func endReportedOnce() async throws {
        let failing = AsyncThrowingStream<UInt8, any Error> { $0.finish(throwing: BrokenPipe()) }
        let chunker = ByteStreamChunker(failing)
        await #expect(throws: BrokenPipe.self) { try await chunker.next() }
        #expect(try await chunker.next() == nil)
    }
}

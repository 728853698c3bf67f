import Foundation
import LoopbackServer
import NetCore
import NetTransport
import NetKitLock
import Testing

@testable import NetTransport

/// The spill file's size over a real transfer: a consumer that reads nothing cannot make it grow past `spillLimit`,
/// and the default limit is modest where the temporary directory lives in memory.
@Suite("URLSession transport: a paused consumer's spill stays within spillLimit", .timeLimit(.minutes(10)))
struct SpillLimitLoopbackTests {
    @Test("a consumer that reads nothing: the file never grows past spillLimit, then the body fails loudly")
    func pausedConsumerBounded() async throws {
        let bufferLimit = 64 * 1024
        let spillLimit = 1 << 20
        // 0 bytes: the state machine refuses the chunk that would pass spillLimit before it is staged for the writer,
        // and a consumer that reads nothing gives nothing back, so every write ends at or below spillLimit.
        let margin: Int64 = 0
        // 64 MiB, far more than both limits together.
        let server = try LoopbackServer { _ in .patterned(byteCount: 64 << 20, chunked: true) }
        defer { server.stop() }
        let extent = Lock<Int64>(0)
        let transport = URLSessionTransport(
            bufferLimit: bufferLimit, spillLimit: spillLimit, spillDirectory: FileManager.default.temporaryDirectory,
            beforeSpillWrite: { offset, count in extent.withLock { $0 = max($0, offset + Int64(count)) } })
        let response = try await transport.send(TransportRequest(head: try HTTPRequestHead(url: server.baseURL)))
        // The signal that the bound was hit: the body's transfer is over, read by no one.
        let (over, overSignal) = AsyncStream.makeStream(of: Void.self)
        response.body.whenTransferOver { overSignal.yield() }
        var overIterator = over.makeAsyncIterator()
        await overIterator.next()
        let largest = extent.withLock { $0 }
        // Nothing written is possible too: on a busy machine the limit can be passed while the spilled bytes still
        // wait in memory for the writer (they count against spillLimit there as well).
        #expect(largest <= Int64(spillLimit) + margin, "the spill file grew to \(largest) bytes")
        await #expect(throws: StreamingError.bufferLimitExceeded(limitBytes: bufferLimit + spillLimit)) {
            _ = try await response.body.collect(upTo: 16 << 20)
        }
    }

    @Test("the default spill limit: 4 GiB on disk; in memory (tmpfs) at most 256 MiB and a quarter of what is free")
    func memoryBackedDefault() throws {
        let disk = URL(filePath: FileManager.default.currentDirectoryPath, directoryHint: .isDirectory)
        if !SpillFile.isMemoryBacked(disk) {
            #expect(URLSessionTransport.defaultSpillLimit(in: disk) == URLSessionTransport.defaultSpillLimit)
        }
        #if os(Linux)
        let shm = URL(filePath: "/dev/shm", directoryHint: .isDirectory)
        try #require(SpillFile.isMemoryBacked(shm), "/dev/shm is not tmpfs here")
        let freeBefore = try #require(SpillFile.availableBytes(in: shm))
        let limit = URLSessionTransport.defaultSpillLimit(in: shm)
        let freeAfter = try #require(SpillFile.availableBytes(in: shm))
        #expect(limit <= URLSessionTransport.memoryBackedSpillCap)
        // Other programs share /dev/shm: the limit is a quarter of the free space seen between the two looks.
        #expect(limit <= max(freeBefore, freeAfter) / 4)
        #expect(limit == URLSessionTransport.memoryBackedSpillCap || limit >= min(freeBefore, freeAfter) / 4)
        #endif
    }
}

import Foundation
import NetKitLock
import Testing
import NetCore

/// A body fed by a transport that cannot pause its sender: memory bounded, the rest on disk, nothing lost.
@Suite("Buffered body: memory bound and spill file")
struct BufferedBodySpillTests {
    /// `count` bytes whose value is their offset modulo a prime, so a lost, doubled or reordered piece shows.
    static func piece(at offset: Int, count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: (offset + $0) % 251) })
    }

    static var scratch: URL { FileManager.default.temporaryDirectory }

    @Test("a consumer far behind reads every byte in order; memory stays within its bound, the rest waits on disk")
    func spillsInOrder() async throws {
        let (body, writer) = ResponseBody.makeBuffered(
            bufferLimit: 16 * 1024, spillLimit: 8 << 20, spillDirectory: Self.scratch, onAbandon: {})
        var offset = 0
        // 1 MiB pushed before the consumer reads anything, in pieces of an odd size.
        while offset < 1 << 20 {
            #expect(writer.yield(Self.piece(at: offset, count: 10_007)))
            offset += 10_007
        }
        writer.finish()
        #expect(writer.peakBufferedBytes <= 16 * 1024)
        #expect(writer.peakSpilledBytes > 900 * 1024)
        var received = Data()
        for try await chunk in body { received.append(chunk) }
        #expect(received.count == offset)
        #expect(received == Self.piece(at: 0, count: offset))
    }

    @Test("a consumer that fell behind gets what waits in memory joined, a mebibyte at most a read, in order")
    func catchesUpInLargeReads() async throws {
        let (body, writer) = ResponseBody.makeBuffered(bufferLimit: 4 << 20, onAbandon: {})
        // 2.5 MiB in libcurl's 16 KiB chunks before the consumer reads anything.
        let chunk = 16 * 1024
        let total = 160 * chunk
        for offset in stride(from: 0, to: total, by: chunk) {
            #expect(writer.yield(Self.piece(at: offset, count: chunk)))
        }
        writer.finish()
        var sizes: [Int] = []
        var received = Data()
        for try await piece in body {
            sizes.append(piece.count)
            received.append(piece)
        }
        #expect(received == Self.piece(at: 0, count: total))
        #expect(sizes == [1 << 20, 1 << 20, total - 2 << 20])
    }

    @Test("bytes arriving while the consumer drains the file stay behind the ones already there")
    func interleaved() async throws {
        let (body, writer) = ResponseBody.makeBuffered(
            bufferLimit: 1000, spillLimit: 1 << 20, spillDirectory: Self.scratch, onAbandon: {})
        var offset = 0
        var received = Data()
        var iterator = body.makeAsyncIterator()
        // Push three pieces, read one, for a while: memory, file and the switch back to memory all take turns.
        for _ in 0..<200 {
            for _ in 0..<3 {
                writer.yield(Self.piece(at: offset, count: 777))
                offset += 777
            }
            if let chunk = try await iterator.next() { received.append(chunk) }
        }
        writer.finish()
        while let chunk = try await iterator.next() { received.append(chunk) }
        #expect(received == Self.piece(at: 0, count: offset))
        #expect(writer.peakBufferedBytes <= 1000)
    }

    @Test("past both limits the body fails loudly, drops what it held and tells the transport once")
    func bothLimits() async throws {
        let abandoned = Lock(0)
        let (body, writer) = ResponseBody.makeBuffered(
            bufferLimit: 1000, spillLimit: 5000, spillDirectory: Self.scratch,
            onAbandon: { abandoned.withLock { $0 += 1 } })
        var accepted = 0
        while writer.yield(Data(count: 700)) { accepted += 1 }
        #expect(accepted * 700 <= 6000)
        #expect(abandoned.withLock { $0 } == 1)
        await #expect(throws: StreamingError.bufferLimitExceeded(limitBytes: 6000)) {
            for try await _ in body {}
        }
    }

    @Test("without a spill the body fails past its memory bound, as before")
    func noSpill() async throws {
        let (body, writer) = ResponseBody.makeBuffered(bufferLimit: 1000, onAbandon: {})
        #expect(writer.yield(Data(count: 600)))
        #expect(!writer.yield(Data(count: 600)))
        await #expect(throws: StreamingError.bufferLimitExceeded(limitBytes: 1000)) {
            for try await _ in body {}
        }
    }

    @Test("a spill directory that cannot hold a file fails the body with what went wrong, and stops the transfer")
    func unwritableDirectory() async throws {
        let abandoned = Lock(0)
        let missing = Self.scratch.appending(path: "netkit-no-such-directory-\(UUID().uuidString)")
        let (body, writer) = ResponseBody.makeBuffered(
            bufferLimit: 10, spillLimit: 1000, spillDirectory: missing, onAbandon: { abandoned.withLock { $0 += 1 } })
        #expect(writer.yield(Data(count: 10)))
        // Past the memory bound: handed to the spill's writer (off the producer's thread), which cannot make the file.
        #expect(writer.yield(Data(count: 10)))
        await writer.spillSettled()
        #expect(!writer.yield(Data(count: 10)))
        #expect(abandoned.withLock { $0 } == 1)
        let error = await #expect(throws: ResponseBodyError.self) { for try await _ in body {} }
        #expect(error?.kind == .spillFailed)
        #expect(error?.reason.contains("netkit-no-such-directory") == true)
        #expect("\(error!)".contains("could not be kept on disk"))
    }

    @Test("a second iterator asking while the first waits fails at once; the first still gets the next chunk")
    func twoIterators() async throws {
        let (body, writer) = ResponseBody.makeBuffered(bufferLimit: 1 << 20, onAbandon: {})
        let first = Task {
            var iterator = body.makeAsyncIterator()
            return try await iterator.next()
        }
        // Bounded: the first iterator parks as soon as its task runs.
        for _ in 0..<100_000 where !writer.hasWaitingConsumer { await Task.yield() }
        #expect(writer.hasWaitingConsumer)
        var second = body.makeAsyncIterator()
        await #expect(throws: ResponseBodyError.concurrentIteration) { try await second.next() }
        writer.yield(Data("one".utf8))
        #expect(try await first.value == Data("one".utf8))
        writer.finish()
    }
}

#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import LoopbackServer
import NIOCore
import Testing

@testable import NetAsyncHTTPClient

/// A body of many tiny chunks over loopback, read through the transport's read-ahead (``BodyPump``) by a consumer
/// that pauses: what the pump holds stays within ``BodyPump/bufferLimit`` plus one socket read, however small the
/// chunks, and the whole body arrives.
///
/// The pump's own count is measured, not the process's memory: other tests run beside this one and move the
/// process's peak. The process's figure for two million chunks is measured apart, in a process of its own, by the
/// transports benchmark (Docs/Performance.md).
@Suite("AsyncHTTPClient transport: a body of tiny chunks", .timeLimit(.minutes(15)))
struct TinyChunkMemoryTests {
    /// 40,000 chunks of 16 bytes: 640 KiB, more than twice the read-ahead, so the pump must stop for room (cheap
    /// enough to run beside every other test: one-byte chunks would need 256 times more rounds to fill it).
    static let chunkCount = 40_000
    static let chunkSize = 16
    /// One socket read: SwiftNIO reads at most 64 KiB at a time by default.
    static let margin = 64 << 10

    @Test("40,000 16-byte chunks: a paused consumer holds no more than the read-ahead plus one socket read")
    func pausedConsumerHoldsTheReadAhead() async throws {
        var wire = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = Array("10\r\n\(String(repeating: "x", count: Self.chunkSize))\r\n".utf8)
        wire.reserveCapacity(wire.count + Self.chunkCount * chunk.count + 5)
        for _ in 0..<Self.chunkCount { wire.append(contentsOf: chunk) }
        wire.append(contentsOf: Array("0\r\n\r\n".utf8))
        let server = try LoopbackRawServer(response: wire)
        wire = []
        defer { server.stop() }
        try await withHTTPClient { client in try await readPausing(server: server, client: client) }
    }

    private func readPausing(server: LoopbackRawServer, client: HTTPClient) async throws {
        let response = try await client.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"), timeout: .seconds(60))
        let (parked, parking) = AsyncStream.makeStream(of: Void.self)
        let pump = BodyPump(
            body: response.body, progress: nil, expectedLength: nil, idleTimeout: .seconds(3600),
            authority: "127.0.0.1:\(server.port)", keepAlive: nil, waitsForRoom: { parking.yield() })
        defer { pump.close() }

        // The first read starts the pump; then the consumer pauses until the pump stops for room.
        var received = try await pump.next()?.count ?? 0
        var signals = parked.makeAsyncIterator()
        await signals.next()
        let bound = BodyPump.bufferLimit + Self.margin
        #expect(pump.mostHeld <= bound, "held \(pump.mostHeld) bytes while the consumer paused; bound \(bound)")

        while let piece = try await pump.next() { received += piece.count }
        #expect(received == Self.chunkCount * Self.chunkSize)
        #expect(pump.mostHeld <= bound, "held \(pump.mostHeld) bytes; bound \(bound)")
    }
}
#endif

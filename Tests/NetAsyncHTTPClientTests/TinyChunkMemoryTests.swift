#if AsyncHTTPClient && os(Linux)
import Foundation
import LoopbackServer
import NetAsyncHTTPClient
import NetCore
import Testing

/// A body of two million one-byte chunks read through `stream()`'s road over AsyncHTTPClient, with a timeout and an
/// idle timeout: what it holds is bounded by the transport's read-ahead (BodyPump.bufferLimit), not by the
/// number of chunks. Before, each chunk left a cancelled timer behind for the whole timeout (about 750 bytes).
@Suite("AsyncHTTPClient transport: a body of tiny chunks", .serialized, .timeLimit(.minutes(10)))
struct TinyChunkMemoryTests {
    static let chunkCount = 2_000_000
    /// What the rest of the process may add meanwhile: other tests running in parallel, AsyncHTTPClient's and
    /// SwiftNIO's own buffers (one socket read of chunks at a time), the allocator's slack.
    static let margin = 128 << 20
    /// The transport's read-ahead: BodyPump.bufferLimit.
    static let readAhead = 256 << 10

    struct Stream: Endpoint {
        typealias Response = Data
        var path: String { "/" }
        var method: HTTPMethod { .get }
        var timeout: Duration? { .seconds(3600) }
        var idleTimeout: Duration? { .seconds(3600) }
    }

    /// A field of /proc/self/status, in bytes.
    static func status(_ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        let kilobytes = try #require(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first)
        return try #require(Int(kilobytes)) * 1024
    }

    @Test("two million one-byte chunks through stream(): peak memory within the read-ahead plus a fixed margin")
    func twoMillionOneByteChunks() async throws {
        var wire = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        wire.reserveCapacity(wire.count + Self.chunkCount * 6 + 5)
        let chunk = Array("1\r\nx\r\n".utf8)
        for _ in 0..<Self.chunkCount { wire.append(contentsOf: chunk) }
        wire.append(contentsOf: Array("0\r\n\r\n".utf8))
        let server = try LoopbackRawServer(response: wire)
        wire = []
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let executor = RequestExecutor(transport: transport)

        // The peak starts again from what the process holds now (Linux: "5" resets VmHWM to VmRSS).
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let start = try Self.status("VmRSS")
        let (response, _) = try await executor.streamingResponse(for: Stream(), baseURL: server.baseURL)
        var received = 0
        for try await piece in response.body { received += piece.count }
        let growth = try Self.status("VmHWM") - start

        #expect(received == Self.chunkCount)
        let bound = Self.readAhead + Self.margin
        #expect(
            growth <= bound,
            "peak memory grew by \(growth >> 20) MiB over \(Self.chunkCount) chunks; bound \(bound >> 20) MiB")
        print("TinyChunkMemoryTests: \(Self.chunkCount) one-byte chunks, peak memory +\(growth >> 20) MiB")
        try await transport.shutdown()
    }
}
#endif

#if canImport(FoundationNetworking)
import Foundation
import LoopbackServer
import NetCore
import NetTransport
import Testing

/// A server that sends its body as a flood of one-byte chunks: FoundationNetworking keeps about 340 bytes per chunk
/// until URLSession's work queue catches up, which a flood never lets it do, so byte limits never see it
/// (Docs/Linux.md, "A body in tiny chunks"). The transport stops such a transfer at its budget.
@Suite("URLSession transport: a body sent as a flood of tiny chunks", .serialized, .timeLimit(.minutes(10)))
struct ChunkFloodTests {
    /// 250,000 one-byte chunks: about twice what fills the budget. Before the budget, each road took the whole flood,
    /// and the body's end, before it answered.
    static let chunks = 250_000

    /// The budget the transport keeps FoundationNetworking's bookkeeping within (`TinyChunkBudget`), in MiB.
    static let budgetMiB = 32
    /// Room for what else the process does meanwhile (other suites run in parallel) and for what the flood costs
    /// while the budget fills.
    static let marginMiB = 64

    /// Sends `chunks` one-byte chunks as fast as the client takes them, then holds the body open until `gate` opens
    /// (or the client leaves).
    static func flood(until gate: LoopbackGate) throws -> LoopbackServer {
        try LoopbackServer { _ in
            .streamed(framing: .chunked) { writer in
                // Packed into large writes: a loaded machine's server must not be what paces the flood.
                guard writer.write(Array("x".utf8), times: chunks) else { return }
                _ = writer.wait(for: gate, timeout: .seconds(30))
            }
        }
    }

    func request(_ url: URL, whole: Bool) throws -> TransportRequest {
        var request = TransportRequest(head: try HTTPRequestHead(url: url))
        if whole { request.wholeBody = WholeBodyLimits(success: 64 << 20, failure: 1 << 20) }
        return request
    }

    /// What a stopped flood must say: what failed, where and why, and what to use instead.
    func expectExplained(_ error: (any Error)?, received: Int) {
        let failure = error as? TransportError
        #expect(failure?.kind == .badResponse, "got \(String(describing: error)) after \(received) bytes")
        #expect(failure?.host == "127.0.0.1")
        // Never retried: the same request would meet the same flood.
        #expect(failure?.isTransient == false)
        #expect(failure?.hint == nil, "the detail names the transport without the cost; no guess about the port")
        let text = failure.map { "\($0)" } ?? ""
        #expect(text.contains("tiny chunks"), "\(text)")
        #expect(text.contains("FoundationNetworking"), "\(text)")
        #expect(text.contains("AsyncHTTPClientTransport"), "\(text)")
        #expect(received < Self.chunks, "the whole flood arrived: \(received) bytes")
    }

    /// Reads the flood through the transport, by `send`'s road (`whole`) or a stream's, and checks that it was
    /// stopped at the budget with an error that says why, before the body's end (which the server holds back).
    func expectStopped(whole: Bool) async throws {
        let gate = try LoopbackGate()
        let server = try Self.flood(until: gate)
        defer {
            gate.open()
            server.stop()
        }
        let base = ProcessMemory.resetPeak()
        var received = 0
        var failure: (any Error)?
        do {
            let response = try await URLSessionTransport().send(try request(server.baseURL, whole: whole))
            if whole {
                received = response.body.bufferedData?.count ?? -1
            } else {
                for try await chunk in response.body { received += chunk.count }
            }
        } catch {
            failure = error
        }
        let grown = ProcessMemory.peakGrowthMiB(since: base)
        expectExplained(failure, received: received)
        #expect(grown <= Self.budgetMiB + Self.marginMiB, "peak resident memory grew by \(grown) MiB")
        // The transfer was stopped: the client leaves once FoundationNetworking lets the cancellation through (when
        // the flood pauses), before the body's end.
        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(30))
        #expect(!gate.isOpen)
    }

    // Each in a process of its own: the flood keeps URLSession's work queue, which every session of the process
    // shares, busy until the server pauses (no other test's transfer could move meanwhile), and the peak memory
    // measured must be the flood's alone.

    @Test("send: the flood fails at the budget, before the body ends, with an error that says why")
    func collectedWhole() async {
        await #expect(processExitsWith: .success) {
            try await ChunkFloodTests().expectStopped(whole: true)
        }
    }

    @Test("stream: the consumer reads what came before the stop, then the error that says why")
    func streamed() async {
        await #expect(processExitsWith: .success) {
            try await ChunkFloodTests().expectStopped(whole: false)
        }
    }
}
#endif

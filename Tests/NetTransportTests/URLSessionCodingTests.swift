import Foundation
import LoopbackServer
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// Content codings over URLSession (libcurl decodes on Linux), over loopback TCP: the same outcome as on every
/// transport (``NetCore/ContentCoding``), on both roads: collected whole (`send`) and streamed (`stream()`).
@Suite("URLSession transport: content codings", .timeLimit(.minutes(10)))
struct URLSessionCodingTests {
    /// Where URLSession cannot do as the table says, and what it does instead (Docs/Linux.md): libcurl does not
    /// report a compressed body cut short, and NetKit sees only what libcurl decoded: 1,196 of the 1,200 bytes,
    /// handed over as a success. Should libcurl ever report it, this row fails and the docs change.
    static let exceptions: [String: CodingTable.Outcome] = [
        "a truncated inner layer": .body(CodingTable.text.prefix(1196))
    ]

    func expected(_ row: CodingTable.Row) -> CodingTable.Outcome {
        Self.exceptions[row.name] ?? row.expected
    }

    @Test("each coding is decoded whole or refused, collected whole", arguments: CodingTable.rows)
    func whole(_ row: CodingTable.Row) async throws {
        let outcome = try await CodingTable.run(row, on: URLSessionTransport(), whole: true)
        #expect(outcome == expected(row), "\(row.name): \(outcome)")
    }

    @Test("each coding is decoded whole or refused, streamed", arguments: CodingTable.rows)
    func streamed(_ row: CodingTable.Row) async throws {
        let outcome = try await CodingTable.run(row, on: URLSessionTransport(), whole: false)
        #expect(outcome == expected(row), "\(row.name): \(outcome)")
    }

    @Test("a request that names no Accept-Encoding asks for gzip and deflate alone; one that names its own keeps it")
    func acceptEncoding() async throws {
        let server = try LoopbackServer { request in .text(request.header("Accept-Encoding") ?? "(none)") }
        defer { server.stop() }
        let transport = URLSessionTransport()
        let plain = try await transport.send(TransportRequest(head: try HTTPRequestHead(url: server.baseURL)))
        #expect(String(decoding: try await plain.body.collect(upTo: 1024), as: UTF8.self) == "gzip, deflate")
        let own = try await transport.send(
            TransportRequest(
                head: try HTTPRequestHead(
                    url: server.baseURL, headerFields: HTTPHeaderFields(["Accept-Encoding": "identity"]))))
        #expect(String(decoding: try await own.body.collect(upTo: 1024), as: UTF8.self) == "identity")
    }

    @Test("a refusal says what came and why, names the host, and is not retried")
    func refusalText() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(headers: [("Content-Encoding", "br")], body: CodingTable.brotliHello)
        }
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            try await URLSessionTransport().send(TransportRequest(head: try HTTPRequestHead(url: server.baseURL)))
        }
        #expect(error?.kind == .badResponse)
        #expect(error?.isTransient == false)
        #expect(error?.host == "127.0.0.1")
        #expect(error?.detail?.contains(#""br""#) == true, "\(String(describing: error))")
    }

    @Test("a gzip bomb without a declared length is bounded by the byte limits only: libcurl shows no encoded count")
    func chunkedBomb() async throws {
        let bomb = GzipZeros.make()
        let server = try LoopbackServer { _ in
            .streamed(headers: [("Content-Encoding", "gzip")], framing: .chunked) { body in body.write(bomb) }
        }
        defer { server.stop() }
        var request = TransportRequest(head: try HTTPRequestHead(url: server.baseURL))
        request.wholeBody = WholeBodyLimits(success: 1 << 20, failure: 1 << 20)
        let response = try await URLSessionTransport().send(request)
        // Cut at the limit + 1 byte, which `send` refuses as NetworkError.responseTooLarge.
        #expect(response.body.bufferedData?.count == (1 << 20) + 1)
    }
}

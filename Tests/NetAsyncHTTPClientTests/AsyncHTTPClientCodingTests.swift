#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import LoopbackServer
import NetAsyncHTTPClient
import NetCore
import NetKitTesting
import Testing

/// Content codings over AsyncHTTPClient, over loopback TCP: a body is decoded whole (SwiftNIO decodes one coding,
/// NetKit the rest) or refused with a malformed-response error that is not transient; never handed over still
/// encoded, or half-decoded, as a success. Both roads: collected whole (`send`) and streamed (`stream()`).
@Suite("AsyncHTTPClient transport: content codings", .timeLimit(.minutes(10)))
struct AsyncHTTPClientCodingTests {
    func outcome(of row: CodingTable.Row, on transport: AsyncHTTPClientTransport, whole: Bool) async throws
        -> CodingTable.Outcome
    {
        try await CodingTable.run(row, on: transport, whole: whole)
    }

    func server(_ row: CodingTable.Row) throws -> LoopbackServer {
        try LoopbackServer { _ in
            LoopbackResponse(headers: [("Content-Encoding", row.contentEncoding)], body: row.body)
        }
    }

    @Test("each coding is decoded whole or refused, collected whole", arguments: CodingTable.rows)
    func whole(_ row: CodingTable.Row) async throws {
        let transport = AsyncHTTPClientTransport()
        let outcome = try await outcome(of: row, on: transport, whole: true)
        #expect(outcome == row.expected, "\(row.name): \(outcome)")
        try await transport.shutdown()
    }

    @Test("each coding is decoded whole or refused, streamed", arguments: CodingTable.rows)
    func streamed(_ row: CodingTable.Row) async throws {
        let transport = AsyncHTTPClientTransport()
        let outcome = try await outcome(of: row, on: transport, whole: false)
        #expect(outcome == row.expected, "\(row.name): \(outcome)")
        try await transport.shutdown()
    }

    @Test("a refusal says what came and why, names the host, and is not retried")
    func refusalText() async throws {
        let row = try #require(CodingTable.row("br"))
        let server = try server(row)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(TransportRequest(head: try HTTPRequestHead(method: .get, url: server.baseURL)))
        }
        #expect(error?.kind == .badResponse)
        #expect(error?.isTransient == false)
        #expect(error?.host == "127.0.0.1")
        #expect(error?.detail?.contains(#""br""#) == true, "\(String(describing: error))")
        try await transport.shutdown()
    }

    @Test("a response to HEAD names any coding: there is no body to refuse")
    func headRequest() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(headers: [("Content-Encoding", "br")], body: CodingTable.text)
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let response = try await transport.send(
            TransportRequest(head: try HTTPRequestHead(method: .head, url: server.baseURL)))
        #expect(response.statusCode == 200)
        try await transport.shutdown()
    }

    @Test("a client whose configuration disables decompression gets every body as it was sent")
    func decompressionDisabled() async throws {
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        configuration.decompression = .disabled
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        for name in ["gzip, gzip", "br"] {
            let row = try #require(CodingTable.row(name))
            let outcome = try await outcome(of: row, on: transport, whole: false)
            #expect(outcome == .body(row.body), "\(name): \(outcome)")
        }
        try await transport.shutdown()
    }

    @Test("a client passed in: stacked codings it may have half-decoded are refused, the rest comes as it decodes it")
    func borrowedClient() async throws {
        try await withHTTPClient(
            HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .ratio(100)))
        ) { client in
            let transport = AsyncHTTPClientTransport(client: client)
            let stacked = try #require(CodingTable.row("gzip, gzip"))
            #expect(try await outcome(of: stacked, on: transport, whole: false) == .refused)
            let gzip = try #require(CodingTable.row("gzip"))
            #expect(try await outcome(of: gzip, on: transport, whole: false) == .body(CodingTable.text))
        }
    }
}
#endif

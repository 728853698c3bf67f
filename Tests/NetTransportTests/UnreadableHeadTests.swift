import Foundation
import LoopbackServer
import NetCore
import NetTransport
import Testing

/// Answers that are valid HTTP but that FoundationNetworking on Linux cannot read: the transport says what the
/// server sent and which transport reads it, instead of libcurl's "Failed writing header".
@Suite("URLSession transport: response heads FoundationNetworking refuses")
struct UnreadableHeadTests {
    func send(_ head: String) async throws -> TransportResponse {
        // Latin-1, so that é is the single byte 0xE9 (obs-text, RFC 9110 §5.5), as an old server sends it.
        let bytes =
            head.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } + Array("Content-Length: 2\r\n\r\nok".utf8)
        let server = try LoopbackRawServer(response: bytes)
        defer { server.stop() }
        let request = TransportRequest(head: try HTTPRequestHead(method: .get, url: server.baseURL))
        return try await URLSessionTransport().send(request)
    }

    @Test("a plain head reads as usual (the raw server itself works)")
    func plain() async throws {
        let response = try await send("HTTP/1.1 200 OK\r\nX-Place: cafe\r\n")
        #expect(response.statusCode == 200)
        #expect(try await response.body.collect(upTo: 10) == Data("ok".utf8))
    }

    #if canImport(FoundationNetworking)
    @Test(
        "obs-text in a header value, or a status line without a reason phrase: badResponse that names both and the way out",
        arguments: ["HTTP/1.1 200 OK\r\nX-Place: caf\u{E9}\r\n", "HTTP/1.1 200\r\n"])
    func refused(head: String) async throws {
        let error = await #expect(throws: TransportError.self) { try await send(head) }
        #expect(error?.kind == .badResponse)
        let detail = error?.detail ?? ""
        #expect(detail.contains("obs-text") && detail.contains("reason phrase"), "\(detail)")
        #expect(detail.contains("AsyncHTTPClientTransport"), "\(detail)")
    }
    #endif
}

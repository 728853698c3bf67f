import Foundation
import LoopbackServer
import Testing

@Suite("Counted mode over TCP")
struct CountedModeTests {
    @Test func bodiesAreCountedNeitherKeptNorDigested() throws {
        let server = try LoopbackServer(limits: LoopbackLimits(maxBodyBytes: 10), requestBodies: .counted) { request in
            .text("\(request.bodyByteCount)")
        }
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        let piece = [UInt8](LoopbackBodyPattern.data(count: 100_000))

        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(piece.count * 30)\r\n\r\n")
        for _ in 0..<30 { try client.send(piece) }
        let counted = try client.readResponse()
        try client.send(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        let chunked = try client.readResponse()

        #expect(counted.status == 200)
        #expect(String(decoding: counted.body, as: UTF8.self) == "3000000")
        #expect(String(decoding: chunked.body, as: UTF8.self) == "5")
        let requests = server.requests
        #expect(requests.map(\.bodyByteCount) == [3_000_000, 5])
        #expect(requests.allSatisfy { $0.body.isEmpty && $0.bodyDigest == nil })
        #expect(server.peakReceiveBufferBytes <= 128 * 1024)
    }

    @Test func uploadReportRefusesACountedBody() throws {
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .counted) { .uploadReport(for: $0) }
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try client.readResponse().status == 500)
        // Nothing received, nothing hidden: an empty body is reported like in the other modes.
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test func bodyByteCountIsTheBodyInTheOtherModes() {
        #expect(LoopbackRequest(body: Data("abcd".utf8)).bodyByteCount == 4)
        let digest = LoopbackBodyDigest(body: Data("abc".utf8), contentType: nil)
        #expect(LoopbackRequest(bodyDigest: digest).bodyByteCount == 3)
    }
}

import Foundation
import LoopbackServer
import Testing

@Suite("Digest mode over TCP")
struct DigestModeTests {
    private static func makeDigestServer(limits: LoopbackLimits = LoopbackLimits()) throws -> LoopbackServer {
        try LoopbackServer(limits: limits, requestBodies: .digested) { .uploadReport(for: $0) }
    }

    private static func report(_ response: TestResponse) throws -> LoopbackUploadReport {
        try JSONDecoder().decode(LoopbackUploadReport.self, from: Data(response.body))
    }

    private static func post(_ body: [UInt8], contentType: String) -> [UInt8] {
        Array(
            "POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n".utf8
        ) + body
    }

    private static func postChunked(_ body: [UInt8], contentType: String, splitAt splits: [Int]) -> [UInt8] {
        var wire = Array(
            "POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var start = 0
        for end in splits + [body.count] where end > start {
            wire += Array("\(String(end - start, radix: 16))\r\n".utf8) + body[start..<end] + Array("\r\n".utf8)
            start = end
        }
        return wire + Array("0\r\n\r\n".utf8)
    }

    @Test func multipartUploadWithContentLengthIsSummarisedNotKept() throws {
        let server = try Self.makeDigestServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        let body = BodyDigestTests.multipartBody

        try client.send(Self.post(body, contentType: BodyDigestTests.contentType))
        let response = try client.readResponse()
        let report = try Self.report(response)

        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(report.digest == (try BodyDigestTests.expectedDigest()))
        #expect(report.method == "POST")
        #expect(report.target == "/up")
        #expect(report.contentLength == body.count)
        #expect(!report.wasChunked)
        let request = try #require(server.requests.first)
        #expect(request.body.isEmpty)
        #expect(request.bodyDigest == report.digest)
        #expect(request.contentLength == body.count)
        #expect(server.requestBodyMode == .digested)
    }

    /// Chunk boundaries are piece boundaries for the digester, so this puts a piece boundary at
    /// every byte of the body, whatever TCP does with the segments.
    @Test func chunkedUploadSplitAtEveryPositionGivesTheSameDigest() throws {
        let server = try Self.makeDigestServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        let body = BodyDigestTests.multipartBody
        let expected = try BodyDigestTests.expectedDigest()

        var mismatches: [Int] = []
        for split in 1..<body.count {
            try client.send(Self.postChunked(body, contentType: BodyDigestTests.contentType, splitAt: [split]))
            let report = try Self.report(try client.readResponse())
            if report.digest != expected || !report.wasChunked || report.contentLength != nil {
                mismatches.append(split)
            }
        }
        try client.send(
            Self.postChunked(body, contentType: BodyDigestTests.contentType, splitAt: Array(1..<body.count)))
        let byteByByte = try Self.report(try client.readResponse())

        #expect(mismatches.isEmpty)
        #expect(byteByByte.digest == expected)
        #expect(server.acceptedConnections == 1)
    }

    @Test func digestAndBufferedServersReportTheSameUploads() throws {
        let digesting = try Self.makeDigestServer()
        defer { digesting.stop() }
        let buffering = try LoopbackServer { .uploadReport(for: $0) }
        defer { buffering.stop() }
        let uploads: [(body: [UInt8], contentType: String)] = [
            (BodyDigestTests.multipartBody, BodyDigestTests.contentType),
            (
                Array("--B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\nv\r\n--B--\r\nmore".utf8),
                "multipart/form-data; boundary=B"
            ),
            (Array(#"{"id":1}"#.utf8), "application/json"),
            ([], "multipart/form-data; boundary=B"),
        ]

        for (index, upload) in uploads.enumerated() {
            var reports: [LoopbackUploadReport] = []
            for server in [digesting, buffering] {
                let client = try TestClient(port: server.port)
                try client.send(Self.post(upload.body, contentType: upload.contentType))
                reports.append(try Self.report(try client.readResponse()))
            }
            #expect(reports[0] == reports[1], "upload \(index)")
            #expect(reports[0].digest.byteCount == upload.body.count)
        }
        #expect(buffering.requests.map(\.bodyDigest) == [nil, nil, nil, nil])
        #expect(buffering.requests.first?.body == Data(BodyDigestTests.multipartBody))
    }

    @Test func bigUploadNeverSitsInTheServersMemory() async throws {
        // Buffered, this would be refused at once: the body is 32 times the in-memory limit.
        let server = try Self.makeDigestServer(limits: LoopbackLimits(maxBodyBytes: 256 * 1024))
        defer { server.stop() }
        let piece = [UInt8](LoopbackBodyPattern.data(count: LoopbackBodyPattern.period * 1024))
        let pieces = 33
        let count = piece.count * pieces
        let (report, expected) = try await onDedicatedThread {
            let client = try TestClient(port: server.port)
            var expected = LoopbackBodyDigester(contentType: "application/octet-stream")
            try client.send(
                "PUT /big HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: \(count)\r\n\r\n"
            )
            for _ in 0..<pieces {
                try client.send(piece)
                expected.update(piece)
            }
            return (try Self.report(try client.readResponse()), expected.finalize())
        }

        #expect(count > 32 * 256 * 1024)
        #expect(report.digest == expected)
        #expect(report.contentLength == count)
        #expect(server.peakReceiveBufferBytes <= 128 * 1024)
    }

    @Test func bigChunkedUploadIsDigestedToo() throws {
        let server = try Self.makeDigestServer(limits: LoopbackLimits(maxBodyBytes: 1024))
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        let piece = [UInt8](LoopbackBodyPattern.data(count: 100_000))
        var expected = LoopbackBodyDigester(contentType: nil)

        try client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<80 {
            try client.send(Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8))
            expected.update(piece)
        }
        try client.send("0\r\nX-Sum: done\r\n\r\n")
        let report = try Self.report(try client.readResponse())

        #expect(report.digest == expected.finalize())
        #expect(report.digest.byteCount == 8_000_000)
        #expect(report.wasChunked)
        #expect(server.requests.first.map { pairs($0.trailers) } == [["X-Sum", "done"]])
        #expect(server.peakReceiveBufferBytes <= 128 * 1024)
    }

    @Test func digestModeHasItsOwnBodyLimit() throws {
        let server = try Self.makeDigestServer(limits: LoopbackLimits(maxBodyBytes: 10, maxDigestedBodyBytes: 1000))
        defer { server.stop() }

        let accepted = try TestClient(port: server.port)
        try accepted.send(Self.post([UInt8](repeating: 1, count: 1000), contentType: "application/octet-stream"))
        let refused = try TestClient(port: server.port)
        try refused.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
        let chunked = try TestClient(port: server.port)
        try chunked.send(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n\(String(repeating: "a", count: 1000))\r\n1\r\nb\r\n0\r\n\r\n"
        )

        #expect(try accepted.readResponse().status == 200)
        #expect(try refused.readResponse().status == 413)
        #expect(try chunked.readResponse().status == 413)
    }

    @Test func expectContinueWorksInDigestMode() throws {
        let server = try Self.makeDigestServer()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readLine() == "HTTP/1.1 100 Continue")
        #expect(try client.readLine() == "")
        try client.send("abc")
        let report = try Self.report(try client.readResponse())

        #expect(report.expectedContinue)
        #expect(report.digest.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

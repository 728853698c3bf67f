import Foundation
import LoopbackServer
import NetCore
import NetMultipart
import NetTransport
import Testing

/// Upload sources (files, forms, streams of known and unknown length) through ``URLSessionTransport``.
@Suite("URLSession transport: bodies from files and streams")
struct URLSessionTransportUploadTests {
    let transport = URLSessionTransport()

    func post(_ url: URL, _ body: UploadSource, progress: NetworkProgress? = nil) throws -> TransportRequest {
        let fields = try HTTPHeaderFields([(name: "Content-Type", value: "application/octet-stream")])
        return TransportRequest(
            head: try HTTPRequestHead(method: .post, url: url, headerFields: fields), body: body, progress: progress)
    }

    @Test("a form with a file is sent with its Content-Length, and sent again identically (replayable)")
    func formTwice() async throws {
        let scratch = try UploadScratch()
        var form = MultipartFormData()
        form.addField(name: "a", value: "1")
        try form.addPart(name: "f", fileURL: try scratch.file("f.bin", uploadPattern(1_500_000)))
        let source = try form.uploadSource()
        #expect(source.isReplayable)
        #expect(source.length == form.contentLength)

        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        for _ in 0..<2 {
            let response = try await transport.send(try post(server.baseURL, source))
            #expect(response.statusCode == 200)
            _ = try await response.body.collect(upTo: 1 << 20)
        }
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.header("Content-Length") == String(form.contentLength) && !$0.wasChunked })
        #expect(requests[0].body == requests[1].body)
        #expect(requests[0].body.count == Int(form.contentLength))
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a stream of declared length now goes out with Content-Length; without one, chunked")
    func streamLengths() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let bytes = uploadPattern(200_000)
        _ = try await transport.send(
            try post(server.baseURL, UploadSource(stream: InputStream(data: bytes), length: 200_000)))
        _ = try await transport.send(
            try post(server.baseURL, UploadSource(stream: InputStream(data: bytes), length: nil)))
        let requests = server.requests
        #expect(requests.map(\.wasChunked) == [false, true])
        #expect(requests.first?.header("Content-Length") == "200000")
        #expect(requests.allSatisfy { $0.body == bytes })
    }

    @Test("a stream shorter than its declared length fails with the reader's error, not a short body")
    func shortStream() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let body = UploadSource(stream: InputStream(data: uploadPattern(10)), length: 11)
        await #expect(throws: UploadSourceError.streamLengthMismatch(expected: 11, actual: 10)) {
            _ = try await transport.send(try post(server.baseURL, body))
        }
        #expect(server.requestCount == 0)
    }

    @Test("a one-shot source cannot be sent twice")
    func oneShot() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let source = UploadSource(stream: InputStream(data: Data("x".utf8)), length: 1)
        #expect(!source.isReplayable)
        _ = try await transport.send(try post(server.baseURL, source))
        await #expect(throws: NetworkError.uploadStreamConsumed) {
            _ = try await transport.send(try post(server.baseURL, source))
        }
    }

    @Test("cancelling the calling task mid-upload closes the file at once")
    func cancelClosesFiles() async throws {
        let scratch = try UploadScratch()
        let source = try UploadSource(fileURL: try scratch.file("big", uploadPattern(32 * 1024 * 1024)))
        let listener = try LoopbackSilentListener()
        let progress = NetworkProgress()
        let transport = self.transport
        let request = try post(listener.baseURL.appendingPathComponent("upload"), source, progress: progress)
        let sending = Task { try await transport.send(request) }
        // The listener never reads: the upload stalls with the file open.
        try await withTimeout(.seconds(20)) {
            for await fraction in progress.updates where fraction > 0 { break }
        }
        #expect(scratch.openDescriptorCount() == 1)
        sending.cancel()
        await #expect(throws: CancellationError.self) { _ = try await sending.value }
        #expect(scratch.openDescriptorCount() == 0)
    }
}

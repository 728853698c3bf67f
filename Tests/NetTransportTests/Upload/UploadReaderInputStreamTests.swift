import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetCore
import NetMultipart
@testable import NetTransport
import Testing

/// The stream adapter through a raw URLSession against the loopback server: what reaches the
/// wire, progress, failures and descriptor hygiene.
@Suite("Upload stream adapter over loopback TCP")
struct UploadReaderInputStreamTests {
    func post(_ url: URL, source: UploadSource) throws -> (URLRequest, UploadReaderInputStream) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let stream = try UploadReaderInputStream(source: source)
        request.httpBodyStream = stream
        StreamedBodyFraming.apply(length: source.length, to: &request)
        return (request, stream)
    }

    func session(_ observer: UploadObserver) -> URLSession {
        URLSession(configuration: .ephemeral, delegate: observer, delegateQueue: nil)
    }

    @Test("a multipart form with a file goes out with its exact Content-Length, not chunked, bytes intact")
    func knownLength() async throws {
        let scratch = try UploadScratch()
        let fileBytes = uploadPattern(3 * 1024 * 1024 + 5)
        var form = MultipartFormData()
        form.addField(name: "title", value: "Holiday")
        try form.addPart(name: "video", fileURL: try scratch.file("clip.mp4", fileBytes))
        let source = try form.uploadSource()
        let expected = try readWhole(source)

        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let observer = UploadObserver()
        let session = session(observer)
        defer { session.finishTasksAndInvalidate() }
        var (request, _) = try post(server.baseURL, source: source)
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        session.dataTask(with: request).resume()

        #expect(try await observer.completion() == nil)
        #expect(observer.status == 200)
        let received = try #require(server.requests.first)
        #expect(received.header("Content-Length") == String(form.contentLength))
        #expect(received.headerValues("Transfer-Encoding").isEmpty)
        #expect(!received.wasChunked)
        #expect(received.body == expected)
        let parts = try received.multipartParts()
        #expect(parts.count == 2)
        #expect(parts.last?.filename == "clip.mp4")
        #expect(parts.last?.contentType == "video/mp4")
        #expect(parts.last?.data == fileBytes)
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("progress counts every byte of the body, framing included, up to its length")
    func progress() async throws {
        let scratch = try UploadScratch()
        var source = UploadSource(data: uploadPattern(1000))
        source.append(.file(try UploadFile(url: try scratch.file("a", uploadPattern(700_000)))))
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let observer = UploadObserver()
        let session = session(observer)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: try post(server.baseURL, source: source).0).resume()

        #expect(try await observer.completion() == nil)
        let sent = observer.sent
        #expect(sent.last == source.length)
        #expect(sent == sent.sorted())
        #expect(sent.count > 1)
    }

    @Test("a body of unknown length is sent chunked, bytes intact")
    func unknownLength() async throws {
        let bytes = uploadPattern(300_000)
        let source = UploadSource(stream: InputStream(data: bytes), length: nil)
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let observer = UploadObserver()
        let session = session(observer)
        defer { session.finishTasksAndInvalidate() }
        var (request, _) = try post(server.baseURL, source: source)
        request.setValue("999", forHTTPHeaderField: "Content-Length")
        StreamedBodyFraming.apply(length: nil, to: &request)
        session.dataTask(with: request).resume()

        #expect(try await observer.completion() == nil)
        let received = try #require(server.requests.first)
        #expect(received.wasChunked)
        #expect(received.header("Content-Length") == nil)
        #expect(received.body == bytes)
    }

    @Test("a file that changed size makes the transfer fail, never end short; its descriptor is closed")
    func brokenFileFailsTheTransfer() async throws {
        let scratch = try UploadScratch()
        let url = try scratch.file("a", uploadPattern(2_000_000))
        let source = try UploadSource(fileURL: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 1_000_000)
        try handle.close()

        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let observer = UploadObserver()
        let session = session(observer)
        defer { session.finishTasksAndInvalidate() }
        let (request, stream) = try post(server.baseURL, source: source)
        session.dataTask(with: request).resume()

        #expect(try await observer.completion() != nil)
        #expect(
            stream.streamError as? UploadSourceError == .fileSizeChanged(url, expected: 2_000_000, actual: 1_000_000))
        #expect(server.requestCount == 0)
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("cancelling mid-upload stops reading and closes the open file")
    func cancelMidUpload() async throws {
        let scratch = try UploadScratch()
        var source = UploadSource(data: Data("head".utf8))
        source.append(.file(try UploadFile(url: try scratch.file("big", uploadPattern(32 * 1024 * 1024)))))
        let listener = try LoopbackSilentListener()
        let observer = UploadObserver()
        let session = session(observer)
        defer { session.finishTasksAndInvalidate() }
        let (request, stream) = try post(listener.baseURL.appendingPathComponent("upload"), source: source)
        let reader = stream.reader
        // What a transport does when a transfer ends for any reason.
        observer.onComplete { reader.close() }
        let task = session.dataTask(with: request)
        task.resume()

        // The listener never reads, so the upload stalls with the file open once the socket
        // buffers are full; it cannot finish before the cancel.
        try await observer.progress(atLeast: 64 * 1024)
        #expect(scratch.openDescriptorCount() == 1)
        task.cancel()
        let error = try await observer.completion()
        #expect((error as? URLError)?.code == .cancelled)
        #expect(scratch.openDescriptorCount() == 0)
        #expect(reader.bytesRead == 0, "a closed reader reports nothing more")
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(stream.read(&buffer, maxLength: 16) == -1)
    }

    func readWhole(_ source: UploadSource) throws -> Data {
        let reader = try source.makeReader()
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        for _ in 0..<1_000_000 {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { break }
            body.append(contentsOf: buffer[..<count])
        }
        return body
    }
}

@Suite("Streamed body framing")
struct StreamedBodyFramingTests {
    @Test("a known length on libcurl: Content-Length plus the Transfer-Encoding placeholder libcurl drops")
    func libcurlKnownLength() {
        let headers = StreamedBodyFraming.headers(forLength: 42, isLibcurl: true)
        #expect(headers.map(\.name) == ["Content-Length", "Transfer-Encoding"])
        #expect(headers.map(\.value) == ["42", " "])
    }

    @Test("a known length on Apple's stack: Content-Length only")
    func appleKnownLength() {
        let headers = StreamedBodyFraming.headers(forLength: 0, isLibcurl: false)
        #expect(headers.map(\.value) == ["0", nil])
    }

    @Test("an unknown length removes any Content-Length so the body goes out chunked", arguments: [true, false])
    func unknownLength(isLibcurl: Bool) {
        #expect(StreamedBodyFraming.headers(forLength: nil, isLibcurl: isLibcurl).allSatisfy { $0.value == nil })
    }
}

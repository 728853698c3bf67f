import Foundation
import Testing
import NetCore

/// Bodies from files and streams through the request builder: which payload, which framing, which errors.
@Suite("Request building: files, streams and framing")
struct RequestBuilderUploadTests {
    let base = URL(string: "https://api.example.com")!
    let builder = RequestBuilder()

    /// A directory of its own, removed when dropped.
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-builder-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func file(_ name: String, _ bytes: Data) throws -> URL {
            let file = url.appendingPathComponent(name)
            try bytes.write(to: file)
            return file
        }
    }

    @Test("a file body: a replayable source of the file's size, its type from the extension unless given")
    func fileBody() throws {
        let scratch = try Scratch()
        let file = try scratch.file("photo.JPG", Data(repeating: 9, count: 1234))
        let body = try RequestBody(fileURL: file)
        #expect(body.contentType == "image/jpeg")
        let built = try builder.makeRequest(ConfigurableRequest(body: body), baseURL: base)
        #expect(built.isReplayable)
        #expect(built.bodyLength == 1234)
        #expect(built.value(forHeader: "Content-Type") == "image/jpeg")

        let unknown = try RequestBody(fileURL: try scratch.file("data.zzz", Data([1])))
        #expect(unknown.contentType == "application/octet-stream")
        let typed = try RequestBody(fileURL: file, contentType: "application/x-raw")
        #expect(typed.contentType == "application/x-raw")
    }

    @Test("a missing file, a directory: typed errors when the body is made")
    func fileBodyErrors() throws {
        let scratch = try Scratch()
        let missing = scratch.url.appendingPathComponent("nope.bin")
        #expect(throws: UploadSourceError.fileNotFound(missing)) { try RequestBody(fileURL: missing) }
        #expect(throws: UploadSourceError.notARegularFile(scratch.url)) { try RequestBody(fileURL: scratch.url) }
    }

    @Test("a stream body with a length is a source of that length; without one, of unknown length; neither replayable")
    func streamBodies() throws {
        let known = try builder.makeRequest(
            ConfigurableRequest(
                body: RequestBody(stream: InputStream(data: Data("abc".utf8)), length: 3, contentType: "text/plain")),
            baseURL: base
        )
        #expect(known.bodyLength == 3)
        #expect(!known.isReplayable)
        let unknown = try builder.makeRequest(
            ConfigurableRequest(
                body: RequestBody(stream: InputStream(data: Data("abc".utf8)), contentType: "text/plain")),
            baseURL: base
        )
        #expect(unknown.bodyLength == nil)
        #expect(!unknown.isReplayable)
    }

    @Test("a stream body an earlier send has read is refused before a request is built")
    func consumedStream() throws {
        let body = RequestBody(stream: InputStream(data: Data("abc".utf8)), length: 3, contentType: "text/plain")
        let request = ConfigurableRequest(body: body)
        let first = try builder.makeRequest(request, baseURL: base)
        let source = try #require(first.body)
        _ = try source.makeReader()  // what a transport does when it sends the body
        #expect(first.body?.isConsumed == true)
        #expect(throws: NetworkError.uploadStreamConsumed) { try builder.makeRequest(request, baseURL: base) }
    }

    @Test(
        "a request's own Content-Length is accepted when it is the body's size",
        arguments: ["content-length", "Content-Length"])
    func matchingContentLength(name: String) throws {
        let request = ConfigurableRequest(
            headers: [name: "3"], body: RequestBody(data: Data("abc".utf8), contentType: "text/plain"))
        let built = try builder.makeRequest(request, baseURL: base)
        #expect(built.value(forHeader: "Content-Length") == "3")
        let empty = try builder.makeRequest(
            ConfigurableRequest(method: .get, headers: ["Content-Length": "0"]), baseURL: base)
        #expect(empty.value(forHeader: "Content-Length") == "0")
    }

    @Test(
        "a Content-Length that is not the body's size is refused",
        arguments: ["4", "2", "+3", " 3", "3 ", "", "x", "99999999999999999999"])
    func wrongContentLength(value: String) {
        let request = ConfigurableRequest(
            headers: ["Content-Length": value], body: RequestBody(data: Data("abc".utf8), contentType: "text/plain"))
        #expect(throws: NetworkError.invalidHeader(name: "Content-Length")) {
            try builder.makeRequest(request, baseURL: base)
        }
    }

    @Test("a Content-Length on a body of unknown size, or on no body, is refused")
    func contentLengthWithoutKnownSize() {
        let stream = ConfigurableRequest(
            headers: ["Content-Length": "3"],
            body: RequestBody(stream: InputStream(data: Data("abc".utf8)), contentType: "text/plain")
        )
        #expect(throws: NetworkError.invalidHeader(name: "Content-Length")) {
            try builder.makeRequest(stream, baseURL: base)
        }
        let none = ConfigurableRequest(method: .get, headers: ["Content-Length": "3"])
        #expect(throws: NetworkError.invalidHeader(name: "Content-Length")) {
            try builder.makeRequest(none, baseURL: base)
        }
    }

    @Test("a request may not name its own Transfer-Encoding", arguments: ["chunked", "gzip", " "])
    func transferEncoding(value: String) {
        let request = ConfigurableRequest(
            headers: ["transfer-encoding": value],
            body: RequestBody(stream: InputStream(data: Data("abc".utf8)), contentType: "text/plain")
        )
        #expect(throws: NetworkError.invalidHeader(name: "transfer-encoding")) {
            try builder.makeRequest(request, baseURL: base)
        }
    }
}

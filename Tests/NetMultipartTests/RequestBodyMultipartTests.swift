import Foundation
import NetCore
import NetMultipart
import Testing

/// Forms through the request builder: which body, which framing, which errors.
@Suite("Request building: multipart forms")
struct RequestBodyMultipartTests {
    /// A POST of one body, as a user's `Endpoint` would be.
    struct FormRequest: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/upload" }
        var method: HTTPMethod { .post }
        var body: RequestBody?
    }

    let base = URL(string: "https://api.example.com")!
    let builder = RequestBuilder()

    @Test("a multipart name with a line break is an encoding error", arguments: ["a\r\nb", "a\nb", "a\u{0}"])
    func invalidMultipart(name: String) {
        var form = MultipartFormData()
        form.addPart(name: name, data: Data("x".utf8), mimeType: "text/plain")
        #expect(throws: NetworkError.invalidMultipartEncoding) { try RequestBody(multipart: form) }
    }

    @Test("a multipart form carries its boundary in the content type")
    func multipartBody() throws {
        var form = MultipartFormData(boundary: "XYZ")
        form.addPart(name: "f", data: Data("x".utf8), mimeType: "text/plain")
        let built = try builder.makeRequest(FormRequest(body: try RequestBody(multipart: form)), baseURL: base)
        #expect(built.value(forHeader: "Content-Type") == "multipart/form-data; boundary=XYZ")
        #expect(built.body?.inMemoryData == form.encodedData())
    }

    @Test("a form held in memory is one Data, byte for byte encoded(), as EKNetwork sends it")
    func inMemoryForm() throws {
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "a", value: "1")
        form.addPart(
            name: "f", data: Data(repeating: 7, count: 40_000), mimeType: "application/octet-stream", filename: "f")
        let built = try builder.makeRequest(FormRequest(body: try RequestBody(multipart: form)), baseURL: base)
        let data = try #require(built.body?.inMemoryData, "a form in memory is one Data")
        #expect(data == (try form.encoded()))
        #expect(built.value(forHeader: "Content-Type") == "multipart/form-data; boundary=B")
    }

    @Test("a form with a file part is a replayable source of the form's exact length, never encoded in memory")
    func formWithFile() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "title", value: "x")
        try form.addPart(name: "clip", fileURL: try scratch.file("clip.mp4", Data(repeating: 1, count: 5000)))
        let built = try builder.makeRequest(FormRequest(body: try RequestBody(multipart: form)), baseURL: base)
        let source = try #require(built.body)
        #expect(source == (try form.uploadSource()))
        #expect(built.isReplayable)
        #expect(built.bodyLength == form.contentLength)
        #expect(built.value(forHeader: "Content-Type") == "multipart/form-data; boundary=B")
    }

    @Test("a form with a stream part is a source that is not replayable")
    func formWithStream() throws {
        var form = MultipartFormData()
        form.addPart(name: "s", stream: InputStream(data: Data("abc".utf8)), length: 3, mimeType: "text/plain")
        let built = try builder.makeRequest(FormRequest(body: try RequestBody(multipart: form)), baseURL: base)
        #expect(built.body?.inMemoryData == nil)
        #expect(!built.isReplayable)
        #expect(built.bodyLength == form.contentLength)
    }

    @Test("a form with a file part and a bad header value is an encoding error, before anything is opened")
    func invalidFormWithFile() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData()
        try form.addPart(name: "bad\r\nname", fileURL: try scratch.file("a.bin", Data([1])))
        #expect(throws: NetworkError.invalidMultipartEncoding) { try RequestBody(multipart: form) }
    }

}

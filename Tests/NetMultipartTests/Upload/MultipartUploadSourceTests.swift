import Foundation
@testable import NetCore
@testable import NetMultipart
import Testing

@Suite("Multipart: parts from files and streams")
struct MultipartUploadSourceTests {
    @Test("a form with a field and a file part has the exact RFC 7578 bytes")
    func exactBytesWithFile() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData(boundary: "TestBoundary")
        form.addField(name: "title", value: "Hello")
        try form.addPart(name: "doc", fileURL: try scratch.file("notes.txt", Data("hi there".utf8)))

        let expected = Data(
            """
            --TestBoundary\r
            Content-Disposition: form-data; name="title"\r
            \r
            Hello\r
            --TestBoundary\r
            Content-Disposition: form-data; name="doc"; filename="notes.txt"\r
            Content-Type: text/plain\r
            \r
            hi there\r
            --TestBoundary--\r

            """.utf8)
        let source = try form.uploadSource()
        #expect(try readAll(try source.makeReader(), bufferSize: 5) == expected)
        #expect(source.length == Int64(expected.count))
        #expect(form.contentLength == Int64(expected.count))
        #expect(form.encodedLength == expected.count)
    }

    /// The same form twice: once with in-memory parts, once with the same bytes from files
    /// and a stream. The reader's bytes must equal `encoded()` of the in-memory twin.
    @Test(
        "file and stream parts produce the same bytes as in-memory parts, with every buffer size",
        arguments: [1, 2, 3, 7, 64, 1000, 70_000])
    func sameBytesAsEncoded(bufferSize: Int) throws {
        let scratch = try ScratchDirectory()
        let big = patternBytes(200_000)
        let empty = Data()
        let streamed = patternBytes(1234, seed: 7)
        var memory = MultipartFormData(boundary: "b0und'ary (test)")
        var mixed = MultipartFormData(boundary: "b0und'ary (test)")
        for form in [0, 1] {
            var target = form == 0 ? memory : mixed
            target.addField(name: "na\"me\\", value: "välue")
            if form == 0 {
                target.addPart(name: "big", data: big, mimeType: "image/png", filename: "big.png")
                target.addPart(name: "empty", data: empty, mimeType: "application/octet-stream", filename: "empty.bin")
                target.addPart(name: "s", data: streamed, mimeType: "application/x-thing", filename: "q\"uote\\d.bin")
            } else {
                try target.addPart(name: "big", fileURL: try scratch.file("big.png", big))
                try target.addPart(name: "empty", fileURL: try scratch.file("empty.bin", empty))
                target.addPart(
                    name: "s", stream: InputStream(data: streamed), length: 1234,
                    mimeType: "application/x-thing", filename: "q\"uote\\d.bin")
            }
            target.addField(name: "last", value: "")
            if form == 0 { memory = target } else { mixed = target }
        }
        let expected = try memory.encoded()
        let source = try mixed.uploadSource()
        #expect(source.length == Int64(expected.count))
        #expect(mixed.contentLength == Int64(expected.count))
        #expect(try readAll(try source.makeReader(), bufferSize: bufferSize) == expected)
        #expect(try readAll(try memory.uploadSource().makeReader(), bufferSize: bufferSize) == expected)
    }

    @Test("an empty form's upload source is the close delimiter alone")
    func emptyForm() throws {
        let form = MultipartFormData(boundary: "B")
        #expect(try readAll(try form.uploadSource().makeReader(), bufferSize: 2) == Data("--B--\r\n".utf8))
        #expect(form.contentLength == 7)
    }

    @Test("large in-memory parts are referenced, not copied, small ones share the framing segment")
    func segmentsLayout() throws {
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "a", value: "1")
        form.addPart(name: "big", data: patternBytes(MultipartFormData.inlineDataLimit + 1), mimeType: "x/y")
        let segments = try form.uploadSource().segments
        #expect(segments.count == 3)
        #expect(segments[1] == .data(patternBytes(MultipartFormData.inlineDataLimit + 1)))
    }

    @Test("filename defaults to the last path component and the MIME type to the extension's")
    func defaultsFromTheFile() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData()
        try form.addPart(name: "p", fileURL: try scratch.file("Photo.JPG", Data([1])))
        try form.addPart(name: "q", fileURL: try scratch.file("data.unknownext", Data([2])))
        try form.addPart(
            name: "r", fileURL: try scratch.file("README", Data([3])), mimeType: "text/x-readme", filename: "read me")
        #expect(form.parts.map(\.filename) == ["Photo.JPG", "data.unknownext", "read me"])
        #expect(form.parts.map(\.mimeType) == ["image/jpeg", "application/octet-stream", "text/x-readme"])
        #expect(form.parts.allSatisfy { !$0.isInMemory && $0.data.isEmpty })
    }

    @Test("a missing file, a directory, or an unreadable file throw when the part is added")
    func addChecksTheFile() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData()
        let missing = scratch.url.appendingPathComponent("nope.txt")
        #expect(throws: UploadSourceError.fileNotFound(missing)) { try form.addPart(name: "f", fileURL: missing) }
        #expect(throws: UploadSourceError.notARegularFile(scratch.url)) {
            try form.addPart(name: "f", fileURL: scratch.url)
        }
        let locked = try scratch.file("locked.txt", Data("x".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        // root reads any file regardless of its mode; the check is only meaningful for other users.
        if getuid() != 0 {
            #expect(throws: UploadSourceError.fileUnreadable(locked, errno: EACCES)) {
                try form.addPart(name: "f", fileURL: locked)
            }
        }
        #expect(form.parts.isEmpty)
    }

    @Test("a file that changed size after it was added fails while reading, with a typed error")
    func fileChangedAfterAdd() throws {
        let scratch = try ScratchDirectory()
        let url = try scratch.file("f.bin", patternBytes(5000))
        var form = MultipartFormData(boundary: "B")
        try form.addPart(name: "f", fileURL: url)
        try scratch.truncate(url, to: 10)
        let reader = try form.uploadSource().makeReader()
        #expect(throws: UploadSourceError.fileSizeChanged(url, expected: 5000, actual: 10)) {
            try readAll(reader, bufferSize: 1024)
        }
    }

    @Test("encoded() refuses file and stream parts by name and index; encodedData() is nil")
    func encodedRefusesFileParts() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "a", value: "1")
        try form.addPart(name: "f", fileURL: try scratch.file("f", Data("x".utf8)))
        #expect(throws: MultipartEncodingError.partNotInMemory(name: "f", partIndex: 1)) { try form.encoded() }
        #expect(form.encodedData() == nil)

        var streamed = MultipartFormData(boundary: "B")
        streamed.addPart(name: "s", stream: InputStream(data: Data("x".utf8)), length: 1, mimeType: "")
        #expect(throws: MultipartEncodingError.partNotInMemory(name: "s", partIndex: 0)) { try streamed.encoded() }
        // Refusing did not consume the stream.
        #expect(
            try readAll(try streamed.uploadSource().makeReader(), bufferSize: 64).count == Int(streamed.contentLength))
    }

    @Test("uploadSource() validates headers and in-memory data like encoded()")
    func uploadSourceValidates() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData(boundary: "B")
        try form.addPart(name: "f", fileURL: try scratch.file("f", Data("x".utf8)), filename: "evil\r\nX-Injected: 1")
        #expect(throws: MultipartEncodingError.lineBreakInHeader(field: .filename, partIndex: 0)) {
            try form.uploadSource()
        }

        var collision = MultipartFormData(boundary: "B")
        try collision.addPart(name: "f", fileURL: try scratch.file("g", Data("x".utf8)))
        collision.addPart(name: "m", data: Data("a\r\n--B".utf8), mimeType: "")
        #expect(throws: MultipartEncodingError.boundaryInPart(name: "m", partIndex: 1)) { try collision.uploadSource() }

        var badType = MultipartFormData(boundary: "B")
        badType.addPart(name: "s", stream: InputStream(data: Data()), length: 0, mimeType: "text/plain\n")
        #expect(throws: MultipartEncodingError.lineBreakInHeader(field: .mimeType, partIndex: 0)) {
            try badType.uploadSource()
        }
    }

    @Test("file data is not scanned for the boundary: with a fixed boundary the caller must choose one the files lack")
    func fileDataIsNotScanned() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData(boundary: "B")
        try form.addPart(name: "f", fileURL: try scratch.file("f", Data("a\r\n--B".utf8)))
        // Documented behaviour: the bytes go out as they are.
        #expect(try readAll(try form.uploadSource().makeReader(), bufferSize: 64).count == Int(form.contentLength))
    }

    @Test("memory and file forms replay identically; a stream part makes the form one-shot")
    func replayability() throws {
        let scratch = try ScratchDirectory()
        var form = MultipartFormData(boundary: "B")
        form.addField(name: "a", value: "1")
        try form.addPart(name: "f", fileURL: try scratch.file("f.bin", patternBytes(150_000)))
        let source = try form.uploadSource()
        #expect(source.isReplayable)
        #expect(
            try readAll(try source.makeReader(), bufferSize: 4096) == readAll(try source.makeReader(), bufferSize: 17))

        form.addPart(name: "s", stream: InputStream(data: Data("z".utf8)), length: 1, mimeType: "")
        let oneShot = try form.uploadSource()
        #expect(!oneShot.isReplayable)
        _ = try readAll(try oneShot.makeReader(), bufferSize: 4096)
        #expect(throws: UploadSourceError.streamAlreadyConsumed) { try oneShot.makeReader() }
        // Every copy of the form shares the stream: a fresh upload source cannot resend it either.
        #expect(throws: UploadSourceError.streamAlreadyConsumed) { try form.uploadSource().makeReader() }
    }

    @Test("the Part API of in-memory parts is unchanged")
    func inMemoryPartAPI() {
        let part = MultipartFormData.Part(name: "n", filename: "f", data: Data("d".utf8), mimeType: "m")
        #expect(part.data == Data("d".utf8))
        #expect(part.isInMemory)
        #expect(part.content == .data(Data("d".utf8)))
    }

    @Test(
        "MIME types by extension, case-insensitive, octet-stream when unknown",
        arguments: [
            ("txt", "text/plain"), ("html", "text/html"), ("css", "text/css"), ("csv", "text/csv"),
            ("json", "application/json"), ("xml", "application/xml"), ("pdf", "application/pdf"),
            ("zip", "application/zip"), ("gz", "application/gzip"), ("tar", "application/x-tar"),
            ("png", "image/png"), ("jpg", "image/jpeg"), ("JPEG", "image/jpeg"), ("gif", "image/gif"),
            ("webp", "image/webp"), ("heic", "image/heic"), ("svg", "image/svg+xml"), ("mp3", "audio/mpeg"),
            ("m4a", "audio/mp4"), ("wav", "audio/wav"), ("mp4", "video/mp4"), ("mov", "video/quicktime"),
            ("webm", "video/webm"), ("", "application/octet-stream"), ("xyz123", "application/octet-stream"),
        ])
    func mimeTable(pathExtension: String, expected: String) {
        #expect(MultipartFormData.mimeType(forPathExtension: pathExtension) == expected)
    }
}

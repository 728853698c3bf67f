import Foundation
import NetCore
import NetKitLock
import NetKitTesting
import Testing

/// `HARRecordingTransport` over a `StubTransport`: what each exchange becomes in the file, with no network.
@Suite("HAR recording", .timeLimit(.minutes(10)))
struct HARRecordingTests {
    /// A fresh folder for one test's archive, removed by the test.
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-har-\(UUID().uuidString)")
        var archive: URL { url.appendingPathComponent("fixtures/recording.har") }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    func request(
        _ method: HTTPRequestMethod = .get, _ url: String, headers: [(name: String, value: String)] = [],
        body: UploadSource? = nil
    ) throws -> TransportRequest {
        TransportRequest(
            head: try HTTPRequestHead(method: method, url: URL(string: url)!, headerFields: HTTPHeaderFields(headers)),
            body: body)
    }

    /// The archive as written to disk.
    func written(_ folder: Folder) throws -> HARArchive {
        try HARArchive(contentsOf: folder.archive)
    }

    @Test("the request and the response are recorded field by field, in order")
    func fields() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let stub = StubTransport(replies: [
            StubTransport.Reply.json(#"{"id":7}"#, status: 201).header("X-Order", "1").header("X-Order", "2")
                .header("Location", "/v1/items/7")
        ])
        let recording = HARRecordingTransport(wrapping: stub, to: folder.archive)
        let response = try await recording.send(
            try request(
                .post, "https://api.test/v1/items?page=2&q=a%20b",
                headers: [
                    ("Accept", "application/json"), ("X-Trace", "a"), ("X-Trace", "b"),
                    ("Content-Type", "application/json"),
                ],
                body: UploadSource(data: Data(#"{"name":"ann"}"#.utf8))))
        #expect(try await response.body.collect(upTo: 1 << 20) == Data(#"{"id":7}"#.utf8))
        try await recording.flush()

        let entries = try written(folder).log.entries
        try #require(entries.count == 1)
        let entry = entries[0]
        #expect(entry.request.method == "POST")
        #expect(entry.request.url == "https://api.test/v1/items?page=2&q=a%20b")
        #expect(
            entry.request.headers.map { "\($0.name): \($0.value)" } == [
                "Accept: application/json", "X-Trace: a", "X-Trace: b", "Content-Type: application/json",
            ])
        #expect(entry.request.queryString == [HARRecord(name: "page", value: "2"), HARRecord(name: "q", value: "a b")])
        #expect(entry.request.postData?.mimeType == "application/json")
        #expect(entry.request.postData?.text == #"{"name":"ann"}"#)
        #expect(entry.request.bodySize == 14)
        #expect(entry.response.status == 201)
        #expect(entry.response.statusText == "Created")
        #expect(entry.response.headers.filter { $0.name == "X-Order" }.map(\.value) == ["1", "2"])
        #expect(entry.response.redirectURL == "/v1/items/7")
        #expect(entry.response.content.mimeType == "application/json")
        #expect(entry.response.content.text == #"{"id":7}"#)
        #expect(entry.response.content.size == 8)
        #expect(entry.response.comment == nil)
        #expect(entry.timings.blocked == -1 && entry.timings.dns == -1 && entry.timings.connect == -1)
        #expect(entry.timings.send >= 0 && entry.timings.wait >= 0 && entry.timings.receive >= 0)
        #expect(entry.time == entry.timings.total)
        #expect(try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(entry.startedDateTime) <= Date())
        #expect(recording.archive == (try written(folder)))
    }

    @Test("the user and password of a URL are not recorded")
    func userinfo() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(wrapping: StubTransport(replies: [.status(204)]), to: folder.archive)
        let response = try await recording.send(try request(.get, "https://ann:hunter2@api.test/v1"))
        _ = try await response.body.collect(upTo: 0)
        try await recording.flush()
        #expect(try written(folder).log.entries.map(\.request.url) == ["https://api.test/v1"])
        #expect(try written(folder).log.entries.map(\.response.statusText) == ["No Content"])
        #expect(try !String(decoding: Data(contentsOf: folder.archive), as: UTF8.self).contains("hunter2"))
    }

    @Test("a head told sent only when the answer came counts as waiting, not as sending (URLSession's GET)")
    func lateSentHead() async throws {
        /// Tells the head sent at hand-over, after the head arrived, as a transport that cannot see its writes does.
        struct LateSentTransport: HTTPTransport {
            func send(_ request: TransportRequest) async throws -> TransportResponse {
                let headArrived = ContinuousClock.now
                request.onSent?(.head)
                return TransportResponse(
                    head: HTTPResponseHead(statusCode: 204, headerFields: try HTTPHeaderFields([String: String]())),
                    body: .empty, headReceivedAt: headArrived)
            }
        }
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(wrapping: LateSentTransport(), to: folder.archive)
        _ = try await recording.send(try request(.get, "https://api.test/v1")).body.collect(upTo: 0)
        try await recording.flush()
        let timings = try #require(try written(folder).log.entries.first?.timings)
        #expect(timings.send == 0)
        #expect(timings.wait >= 0)
    }

    @Test("each chunk's size and time after the head are recorded as the caller reads it")
    func chunks() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let pieces = ["first ", "second ", "third"].map { Data($0.utf8) }
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [StubTransport.Reply(chunks: pieces)]), to: folder.archive)
        let response = try await recording.send(try request(.get, "https://api.test/stream"))
        var read: [Data] = []
        for try await chunk in response.body { read.append(chunk) }
        #expect(read == pieces)
        try await recording.flush()
        let content = try #require(try written(folder).log.entries.first?.response.content)
        #expect(content.chunks?.map(\.size) == [6, 7, 5])
        let times = content.chunks?.map(\.time) ?? []
        #expect(times.allSatisfy { $0 >= 0 })
        #expect(times == times.sorted())
        #expect(content.text == "first second third")
        #expect(content.size == 18)
    }

    @Test("a body larger than the inline limit goes to a file beside the archive, named relative to it")
    func largeBodies() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let download = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let upload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let stub = StubTransport(replies: [
            StubTransport.Reply(
                headers: ["Content-Type": "application/octet-stream"],
                chunks: stride(from: 0, to: download.count, by: 50_000).map { download[$0..<($0 + 50_000)] })
        ])
        let recording = HARRecordingTransport(wrapping: stub, to: folder.archive, inlineBodyLimit: 64 * 1024)
        let response = try await recording.send(
            try request(.put, "https://api.test/blob", body: UploadSource(data: upload)))
        #expect(try await response.body.collect(upTo: 1 << 20) == download)
        try await recording.flush()

        let entry = try #require(try written(folder).log.entries.first)
        #expect(entry.response.content.file == "recording.bodies/1-response.bin")
        #expect(entry.response.content.text == nil)
        #expect(entry.response.content.size == download.count)
        #expect(entry.response.content.chunks?.map(\.size) == [50_000, 50_000, 50_000, 50_000])
        #expect(entry.request.postData?.file == "recording.bodies/1-request.bin")
        #expect(entry.request.postData?.text == nil)
        #expect(entry.request.bodySize == upload.count)
        let archiveFolder = folder.archive.deletingLastPathComponent()
        #expect(
            try Data(contentsOf: archiveFolder.appendingPathComponent("recording.bodies/1-response.bin")) == download)
        #expect(try Data(contentsOf: archiveFolder.appendingPathComponent("recording.bodies/1-request.bin")) == upload)
    }

    @Test("a small body is inlined: text when UTF-8, base64 otherwise")
    func inlineBodies() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let binary = Data([0xFF, 0x00, 0x80, 0x7F])
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [.data(binary), .data(Data("héllo".utf8))]), to: folder.archive)
        for _ in 0..<2 {
            let response = try await recording.send(try request(.get, "https://api.test/small"))
            _ = try await response.body.collect(upTo: 1 << 20)
        }
        try await recording.flush()
        let contents = try written(folder).log.entries.map(\.response.content)
        #expect(contents.map(\.encoding) == ["base64", nil])
        #expect(contents.map(\.inlineData) == [binary, Data("héllo".utf8)])
        #expect(contents.allSatisfy { $0.file == nil })
        #expect(
            !FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("fixtures/recording.bodies").path)
        )
    }

    @Test("concurrent exchanges are filed in the order they started, whatever order they finish in")
    func startOrder() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let gate = StubGate()
        let stub = StubTransport()
        stub.stub(.path("/first"), reply: StubTransport.Reply.text("first").held(by: gate))
        stub.stub(.path("/second"), reply: .text("second"))
        let recording = HARRecordingTransport(wrapping: stub, to: folder.archive)
        let first = try request(.get, "https://api.test/first")
        let firstCall = Task { try await recording.send(first).body.collect(upTo: 1 << 20) }
        await gate.waitForArrivals(1)
        let second = try await recording.send(try request(.get, "https://api.test/second"))
        #expect(try await second.body.collect(upTo: 1 << 20) == Data("second".utf8))
        #expect(recording.archive.log.entries.map(\.request.url) == ["https://api.test/second"])
        gate.open()
        #expect(try await firstCall.value == Data("first".utf8))
        try await recording.flush()
        #expect(
            try written(folder).log.entries.map(\.request.url) == ["https://api.test/first", "https://api.test/second"])
    }

    @Test("flush waits for a body the caller has not read until it is abandoned")
    func flushWaitsForAbandon() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [.text("never read")]), to: folder.archive)
        var response: TransportResponse? = try await recording.send(try request(.get, "https://api.test/unread"))
        let flushed = Task { try await recording.flush() }
        #expect(recording.archive.log.entries.isEmpty)
        #expect(response?.statusCode == 200)
        response = nil
        try await flushed.value
        let entry = try #require(recording.archive.log.entries.first)
        #expect(entry.response.comment == "body abandoned by the caller after 0 bytes")
        #expect(try written(folder).log.entries.count == 1)
    }

    @Test("a caller that stops reading part-way is recorded as far as it read")
    func abandonedPartWay() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let pieces = [Data("abc".utf8), Data("def".utf8)]
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [StubTransport.Reply(chunks: pieces)]), to: folder.archive)
        let response = try await recording.send(try request(.get, "https://api.test/partial"))
        for try await _ in response.body { break }
        try await recording.flush()
        let entry = try #require(try written(folder).log.entries.first)
        #expect(entry.response.comment == "body abandoned by the caller after 3 bytes")
        #expect(entry.response.content.text == "abc")
        #expect(entry.response.content.chunks?.map(\.size) == [3])
    }

    @Test("a stream request body is recorded and still reaches the wrapped transport whole")
    func streamBody() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let small = Data("a small stream".utf8)
        let large = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let stub = StubTransport { _, _ in .status(200) }
        let recording = HARRecordingTransport(wrapping: stub, to: folder.archive)
        for payload in [small, large] {
            let response = try await recording.send(
                try request(
                    .post, "https://api.test/upload",
                    body: UploadSource(stream: InputStream(data: payload), length: nil)))
            _ = try await response.body.collect(upTo: 0)
        }
        try await recording.flush()
        #expect(stub.requests.map(\.body) == [small, large])
        let posts = try written(folder).log.entries.map(\.request)
        #expect(posts.map(\.bodySize) == [small.count, large.count])
        #expect(posts[0].postData?.inlineData == small)
        let file = try #require(posts[1].postData?.file)
        #expect(try Data(contentsOf: folder.archive.deletingLastPathComponent().appendingPathComponent(file)) == large)
    }

    @Test("a file request body is recorded and still sent")
    func fileBody() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let payload = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 3) })
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let upload = folder.url.appendingPathComponent("upload.bin")
        try payload.write(to: upload)
        let stub = StubTransport { _, _ in .status(200) }
        let recording = HARRecordingTransport(wrapping: stub, to: folder.archive, inlineBodyLimit: 100_000)
        let response = try await recording.send(
            try request(.post, "https://api.test/upload", body: UploadSource(fileURL: upload)))
        _ = try await response.body.collect(upTo: 0)
        try await recording.flush()
        #expect(stub.requests.map(\.body) == [payload])
        #expect(try written(folder).log.entries.first?.request.postData?.inlineData == payload)
    }

    @Test("a body that ends with an error is recorded as far as it came, the error in the comment, and rethrown")
    func bodyError() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let reply = StubTransport.Reply(
            chunks: [Data(count: 100)], bodyError: TransportError(.connectionLost))
        let recording = HARRecordingTransport(wrapping: StubTransport(replies: [reply]), to: folder.archive)
        let response = try await recording.send(try request(.get, "https://api.test/cut"))
        let error = await #expect(throws: TransportError.self) { try await response.body.collect(upTo: 1 << 20) }
        #expect(error?.kind == .connectionLost)
        try await recording.flush()
        let entry = try #require(try written(folder).log.entries.first)
        let comment = try #require(entry.response.comment)
        #expect(comment.hasPrefix("body ended early: "))
        #expect(comment.contains("connectionLost"))
        #expect(comment.hasSuffix("after 100 bytes"))
        #expect(entry.response.content.size == 100)
    }

    @Test("a transport error before the head is recorded as status 0 with the reason, and rethrown")
    func errorBeforeHead() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [.failure(.cannotConnect)]), to: folder.archive)
        let error = await #expect(throws: TransportError.self) {
            try await recording.send(try request(.get, "https://api.test/down"))
        }
        #expect(error?.kind == .cannotConnect)
        try await recording.flush()
        let entry = try #require(try written(folder).log.entries.first)
        #expect(entry.response.status == 0)
        #expect(entry.response.comment?.contains("cannotConnect") == true)
    }

    @Test("the request's own sent-observer is still told")
    func onSentForwarded() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let parts = Lock<[TransportRequest.SentPart]>([])
        var sent = try request(.post, "https://api.test/a", body: UploadSource(data: Data("hi".utf8)))
        sent.onSent = { part in parts.withLock { $0.append(part) } }
        let recording = HARRecordingTransport(wrapping: StubTransport(replies: [.status(200)]), to: folder.archive)
        _ = try await recording.send(sent).body.collect(upTo: 0)
        #expect(parts.withLock { $0 } == [.head, .body(bytes: 2)])
    }

    @Test("a body handed over whole stays whole and is recorded")
    func wholeBody() async throws {
        struct Whole: HTTPTransport {
            func send(_ request: TransportRequest) async throws -> TransportResponse {
                TransportResponse(head: HTTPResponseHead(statusCode: 200), body: ResponseBody(data: Data("all".utf8)))
            }
        }
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(wrapping: Whole(), to: folder.archive)
        let response = try await recording.send(try request(.get, "https://api.test/whole"))
        #expect(response.body.bufferedData == Data("all".utf8))
        try await recording.flush()
        #expect(try written(folder).log.entries.first?.response.content.text == "all")
    }

    @Test("a flush with nothing recorded writes an empty archive, creating its folder")
    func emptyFlush() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(wrapping: StubTransport(), to: folder.archive)
        try await recording.flush()
        let archive = try written(folder)
        #expect(archive.log.entries.isEmpty)
        #expect(archive.log.version == "1.2")
    }

    @Test("an archive that cannot be written fails flush with an error that names it")
    func unwritable() async throws {
        let folder = Folder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        // A file where the archive's folder should be: the folder cannot be created.
        try Data().write(to: folder.url.appendingPathComponent("fixtures"))
        let recording = HARRecordingTransport(wrapping: StubTransport(), to: folder.archive)
        let error = await #expect(throws: HARRecordingError.self) { try await recording.flush() }
        #expect(error?.operation == "write the archive")
        #expect(error?.path == folder.archive.path)
    }
}

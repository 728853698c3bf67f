import Foundation
import LoopbackServer
import Testing
import NetKit

/// Files, forms and streams through `NetworkManager.send` (builder, engine, URLSession transport) to a real
/// HTTP server on 127.0.0.1, which reports what it received.
@Suite("Uploads over loopback TCP", .timeLimit(.minutes(10)))
struct UploadIntegrationTests {
    /// Answers every request with what it saw of the body.
    static func reportingServer(_ mode: LoopbackRequestBodyMode = .buffered) throws -> LoopbackServer {
        try LoopbackServer(limits: LoopbackLimits(), requestBodies: mode) { .uploadReport(for: $0) }
    }

    @Test("a form of fields and files, one over 64 MiB, arrives part by part as sent, with its exact Content-Length")
    func largeForm() async throws {
        let scratch = try UploadScratch()
        let notes = Data("first line\nsecond line\n".utf8)
        let photo = uploadPattern(300_001, seed: 5)
        let video = uploadPattern(64 * 1024 * 1024 + 4099, seed: 9)
        var form = MultipartFormData()
        let title = "Holiday \"2026\""
        form.addField(name: "title", value: title)
        try form.addPart(name: "notes", fileURL: try scratch.file("notes.txt", notes))
        try form.addPart(name: "photo", fileURL: try scratch.file("beach.jpg", photo), filename: "beach 1.jpg")
        form.addField(name: "album", value: "summer")
        try form.addPart(name: "video", fileURL: try scratch.file("clip.mp4", video), mimeType: "application/x-clip")
        // The expected digests are computed while the server digests the upload: two cores, two hashes.
        async let expectedVideo = Task.detached { sha256Hex(video) }.value

        let server = try Self.reportingServer(.digested)
        defer { server.stop() }
        let report = try await NetworkManager(baseURL: server.baseURL).send(SendForm(form: form), accessToken: nil)

        #expect(report.contentLength == Int(form.contentLength))
        #expect(!report.wasChunked)
        #expect(report.digest.byteCount == Int(form.contentLength))
        let parts = try report.digest.multipartParts()
        let expected = [
            LoopbackMultipartPartDigest(
                name: "title", filename: nil, contentType: nil, byteCount: title.utf8.count,
                sha256: sha256Hex(Data(title.utf8))),
            LoopbackMultipartPartDigest(
                name: "notes", filename: "notes.txt", contentType: "text/plain", byteCount: notes.count,
                sha256: sha256Hex(notes)),
            LoopbackMultipartPartDigest(
                name: "photo", filename: "beach 1.jpg", contentType: "image/jpeg", byteCount: photo.count,
                sha256: sha256Hex(photo)),
            LoopbackMultipartPartDigest(
                name: "album", filename: nil, contentType: nil, byteCount: 6, sha256: sha256Hex(Data("summer".utf8))),
            LoopbackMultipartPartDigest(
                name: "video", filename: "clip.mp4", contentType: "application/x-clip", byteCount: video.count,
                sha256: await expectedVideo),
        ]
        #expect(parts == expected)
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a missing file is a typed error when the part or body is made; a file gone before sending fails the send")
    func missingFile() async throws {
        let scratch = try UploadScratch()
        let missing = scratch.url.appendingPathComponent("gone.bin")
        var form = MultipartFormData()
        #expect(throws: UploadSourceError.fileNotFound(missing)) { try form.addPart(name: "f", fileURL: missing) }
        #expect(form.parts.isEmpty)
        #expect(throws: UploadSourceError.fileNotFound(missing)) { try RequestBody(fileURL: missing) }

        let server = try Self.reportingServer()
        defer { server.stop() }
        let file = try scratch.file("soon-gone.bin", uploadPattern(100_000))
        let body = try RequestBody(fileURL: file)
        try FileManager.default.removeItem(at: file)
        await #expect(throws: UploadSourceError.fileNotFound(file)) {
            _ = try await NetworkManager(baseURL: server.baseURL).send(PutBody(body: body), accessToken: nil)
        }
        #expect(server.requestCount == 0, "no request may complete with a body cut short")
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a 503 retry re-sends a file body in full: the server sees two complete, identical bodies")
    func retryResendsFile() async throws {
        let scratch = try UploadScratch()
        let bytes = uploadPattern(3 * 1024 * 1024 + 7)
        let file = try scratch.file("report.pdf", bytes)
        let calls = CallCounter()
        let server = try LoopbackServer { request in
            calls.next() == 1 ? .text("busy", status: 503) : .uploadReport(for: request)
        }
        defer { server.stop() }
        let report = try await NetworkManager(baseURL: server.baseURL)
            .send(PutBody(body: try RequestBody(fileURL: file), retries: 1), accessToken: nil)

        #expect(report.digest.byteCount == bytes.count)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.body == bytes })
        #expect(requests.allSatisfy { $0.header("Content-Length") == String(bytes.count) && !$0.wasChunked })
        #expect(requests.allSatisfy { $0.header("Content-Type") == "application/pdf" })
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a 401 refreshes the token and re-sends a form with a file in full")
    func refreshResendsForm() async throws {
        let scratch = try UploadScratch()
        let bytes = uploadPattern(2 * 1024 * 1024 + 11, seed: 1)
        var form = MultipartFormData()
        form.addField(name: "caption", value: "x")
        try form.addPart(name: "scan", fileURL: try scratch.file("scan.png", bytes))
        let server = try LoopbackServer { request in
            request.header("Authorization") == "Bearer token-1"
                ? .uploadReport(for: request)
                : .json(#"{"error":"expired"}"#, status: 401)
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let refresher = CountingRefresher()
        manager.tokenRefresher = refresher
        let report = try await manager.send(SendForm(form: form), accessToken: { refresher.token })

        #expect(refresher.refreshes == 1)
        #expect(report.digest.byteCount == Int(form.contentLength))
        let requests = server.requests
        #expect(requests.map { $0.header("Authorization") } == ["Bearer token-0", "Bearer token-1"])
        #expect(requests.count == 2 && requests[0].body == requests[1].body)
        #expect(requests.allSatisfy { $0.body.count == Int(form.contentLength) && !$0.wasChunked })
        let parts = try requests[1].multipartParts()
        #expect(parts.map(\.name) == ["caption", "scan"])
        #expect(parts.last?.data == bytes)
        #expect(parts.last?.contentType == "image/png")
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("a stream body is sent once: neither a 503 nor a 401 sends it again")
    func streamSentOnce() async throws {
        let server = try LoopbackServer { _ in .text("busy", status: 503) }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let stream = RequestBody(
            stream: InputStream(data: uploadPattern(1000)), length: 1000, contentType: "text/plain")
        await #expect(throws: HTTPError.self) {
            _ = try await manager.send(PutBody(body: stream, retries: 3), accessToken: nil)
        }
        #expect(server.requestCount == 1)

        let guarded = try LoopbackServer { _ in .json(#"{"error":"expired"}"#, status: 401) }
        defer { guarded.stop() }
        let refreshing = NetworkManager(baseURL: guarded.baseURL)
        let refresher = CountingRefresher()
        refreshing.tokenRefresher = refresher
        let another = RequestBody(
            stream: InputStream(data: uploadPattern(1000)), length: 1000, contentType: "text/plain")
        await #expect(throws: NetworkError.unauthorized) {
            _ = try await refreshing.send(PutBody(body: another), accessToken: { refresher.token })
        }
        #expect(guarded.requestCount == 1)
        #expect(refresher.refreshes == 0)
    }

    @Test("Content-Length is present and exact for every body of known size; a stream of unknown size goes chunked")
    func framing() async throws {
        let scratch = try UploadScratch()
        let bytes = uploadPattern(700_003)
        let file = try scratch.file("data.bin", bytes)
        var form = MultipartFormData()
        form.addField(name: "a", value: "1")
        try form.addPart(name: "f", fileURL: file)
        var streamForm = MultipartFormData()
        streamForm.addPart(
            name: "s", stream: InputStream(data: bytes), length: Int64(bytes.count), mimeType: "text/plain")
        let server = try Self.reportingServer()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)

        let reports = [
            try await manager.send(PutBody(body: try RequestBody(fileURL: file)), accessToken: nil),
            try await manager.send(SendForm(form: form), accessToken: nil),
            try await manager.send(SendForm(form: streamForm), accessToken: nil),
            try await manager.send(
                PutBody(
                    body: RequestBody(
                        stream: InputStream(data: bytes), length: Int64(bytes.count), contentType: "text/plain")),
                accessToken: nil),
            try await manager.send(
                PutBody(body: RequestBody(stream: InputStream(data: bytes), contentType: "text/plain")),
                accessToken: nil),
            try await manager.send(
                PutBody(body: RequestBody(data: bytes, contentType: "text/plain")), accessToken: nil),
        ]
        let lengths = [
            bytes.count, Int(form.contentLength), Int(streamForm.contentLength), bytes.count, nil, bytes.count,
        ]
        #expect(reports.map(\.contentLength) == lengths)
        #expect(reports.map(\.wasChunked) == [false, false, false, false, true, false])
        #expect(reports.map(\.digest.byteCount) == lengths.map { $0 ?? bytes.count })
        #expect(server.requests.allSatisfy { $0.headerValues("Transfer-Encoding").count == ($0.wasChunked ? 1 : 0) })
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("progress rises monotonically and ends at exactly 1.0 after the whole body is sent")
    func progress() async throws {
        let scratch = try UploadScratch()
        var form = MultipartFormData()
        form.addField(name: "a", value: "1")
        try form.addPart(name: "f", fileURL: try scratch.file("big.bin", uploadPattern(8 * 1024 * 1024)))
        let server = try Self.reportingServer()
        defer { server.stop() }
        let progress = NetworkProgress()
        let updates = progress.updates
        let seen = Task {
            var values: [Double] = []
            for await value in updates { values.append(value) }
            return values
        }
        _ = try await NetworkManager(baseURL: server.baseURL).send(
            SendForm(form: form, progress: progress), accessToken: nil)
        let values = await seen.value

        #expect(progress.fractionCompleted == 1.0)
        #expect(progress.outcome == .completed)
        #expect(values.last == 1.0)
        #expect(values.count > 2, "intermediate values are reported while the file is sent")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        #expect(values.dropLast().allSatisfy { $0 < 1.0 })
        #expect(scratch.openDescriptorCount() == 0)
    }

    @Test("cancelling mid-upload stops reading, closes every file and ends progress as cancelled")
    func cancelMidUpload() async throws {
        let scratch = try UploadScratch()
        var form = MultipartFormData()
        try form.addPart(name: "a", fileURL: try scratch.file("a.bin", uploadPattern(32 * 1024 * 1024)))
        try form.addPart(name: "b", fileURL: try scratch.file("b.bin", uploadPattern(1024)))
        let listener = try LoopbackSilentListener()
        let progress = NetworkProgress()
        let manager = NetworkManager(baseURL: listener.baseURL)
        let request = SendForm(form: form, progress: progress)
        let sending = Task { try await manager.send(request, accessToken: nil) }
        // The listener never reads: the upload stalls with the first file open once the socket buffers are
        // full, so it cannot end before the cancel.
        for await fraction in progress.updates where fraction > 0 { break }
        #expect(scratch.openDescriptorCount() == 1)
        sending.cancel()
        await #expect(throws: CancellationError.self) { _ = try await sending.value }

        #expect(scratch.openDescriptorCount() == 0)
        #expect(progress.outcome == .cancelled)
        #expect(progress.fractionCompleted < 1.0)
    }

    @Test("no descriptor stays open after a failed upload: an error status, a server that gives up mid-body")
    func descriptorsAfterFailure() async throws {
        let scratch = try UploadScratch()
        let file = try scratch.file("big.bin", uploadPattern(16 * 1024 * 1024))
        let refusing = try LoopbackServer { _ in .text("no", status: 422) }
        defer { refusing.stop() }
        await #expect(throws: HTTPError.self) {
            _ = try await NetworkManager(baseURL: refusing.baseURL).send(
                PutBody(body: try RequestBody(fileURL: file)), accessToken: nil)
        }
        #expect(refusing.requests.first?.body.count == 16 * 1024 * 1024)
        #expect(scratch.openDescriptorCount() == 0)

        // Answers 413 and closes once the body passes 1 MiB, while the client is still sending.
        let small = try LoopbackServer(limits: LoopbackLimits(maxBodyBytes: 1 << 20)) { _ in .text("ok") }
        defer { small.stop() }
        await #expect(throws: (any Error).self) {
            _ = try await NetworkManager(baseURL: small.baseURL).send(
                PutBody(body: try RequestBody(fileURL: file)), accessToken: nil)
        }
        #expect(scratch.openDescriptorCount() == 0)
    }
}

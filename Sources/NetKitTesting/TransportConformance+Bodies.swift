import Foundation
import LoopbackServer
import NetCore
import NetMultipart

extension TransportConformance {
    /// Bodies of every kind arrive byte for byte: with `Content-Length` whenever the size is known, chunked only
    /// when it is not.
    static let requestBodies = TransportConformanceCheck("request bodies") { context in
        let server = try context.server { _ in .text("ok") }
        defer { server.stop() }
        let bytes = ConformancePattern.data(count: 300_000)
        let file = try ScratchFile(bytes)
        var form = MultipartFormData()
        form.addField(name: "note", value: "hello")
        try form.addPart(name: "file", fileURL: file.url)
        let formSource = try form.uploadSource()
        let formBytes = try formSource.readAll()

        struct Case {
            let name: String
            let body: UploadSource
            let expected: Data
            /// `nil`: chunked.
            let contentLength: Int?
        }
        let cases = [
            Case(name: "data in memory", body: UploadSource(data: bytes), expected: bytes, contentLength: bytes.count),
            Case(name: "empty data", body: UploadSource(data: Data()), expected: Data(), contentLength: 0),
            Case(
                name: "a stream of known length",
                body: UploadSource(stream: InputStream(data: bytes), length: Int64(bytes.count)),
                expected: bytes, contentLength: bytes.count),
            Case(
                name: "a stream of unknown length", body: UploadSource(stream: InputStream(data: bytes), length: nil),
                expected: bytes, contentLength: nil),
            Case(
                name: "a file", body: try UploadSource(fileURL: file.url), expected: bytes, contentLength: bytes.count),
            Case(
                name: "a multipart form with a file", body: formSource, expected: formBytes,
                contentLength: formBytes.count),
            Case(
                name: "an upload source with a stream of unknown length",
                body: UploadSource(segments: [
                    .data(Data("head-".utf8)), .stream(SingleUseInputStream(InputStream(data: bytes)), length: nil),
                ]),
                expected: Data("head-".utf8) + bytes, contentLength: nil),
        ]
        for (index, bodyCase) in cases.enumerated() {
            let request = try context.request(
                server.baseURL.appendingPathComponent("upload/\(index)"),
                method: .post,
                headers: [(name: "Content-Type", value: "application/octet-stream")],
                body: bodyCase.body
            )
            let response = try await context.send(request, "POST \(bodyCase.name)")
            _ = try await context.collect(response.body)
            guard let seen = server.requests.last(where: { $0.path == "/upload/\(index)" }) else {
                throw context.failure("\(bodyCase.name): the server saw no request")
            }
            try context.expect(
                seen.body == bodyCase.expected,
                "\(bodyCase.name): the server got \(seen.body.count) bytes, not the \(bodyCase.expected.count) sent (or different ones)"
            )
            if let length = bodyCase.contentLength {
                let declared = seen.contentLength ?? (length == 0 && !seen.wasChunked ? 0 : nil)
                try context.expect(
                    !seen.wasChunked && declared == length,
                    "\(bodyCase.name): sent \(seen.wasChunked ? "chunked" : "with Content-Length \(seen.contentLength.map(String.init) ?? "none")"), expected Content-Length \(length)"
                )
            } else {
                try context.expect(
                    seen.wasChunked,
                    "\(bodyCase.name): a body of unknown length must go out chunked, went out with Content-Length \(seen.contentLength.map(String.init) ?? "none")"
                )
            }
        }
    }

    /// A large download arrives complete and in order; a large file upload arrives complete.
    static let largeBodies = TransportConformanceCheck("large bodies") { context in
        let size = context.options.largeBodyBytes
        let server = try context.server(limits: LoopbackLimits(maxBodyBytes: size + 1024)) { request in
            if request.method == "GET" {
                return .patterned(byteCount: size, chunked: request.path == "/chunked")
            }
            if request.body.count != size { return .text("got \(request.body.count) bytes, expected \(size)") }
            if let offset = ConformancePattern.firstMismatch(in: request.body, at: 0) {
                return .text("wrong byte at offset \(offset)")
            }
            return .text("ok")
        }
        defer { server.stop() }
        for path in ["/length", "/chunked"] {
            let response = try await context.send(
                try context.request(server.baseURL.appendingPathComponent(path)), "GET \(path) (\(size) bytes)")
            var received = 0
            do {
                for try await chunk in response.body {
                    if let offset = ConformancePattern.firstMismatch(in: chunk, at: received) {
                        throw context.failure("download \(path): wrong byte at offset \(offset)")
                    }
                    received += chunk.count
                }
            } catch let failure as TransportConformanceFailure {
                throw failure
            } catch {
                throw context.failure("download \(path): failed after \(received) bytes: \(String(reflecting: error))")
            }
            try context.expect(received == size, "download \(path): \(received) bytes arrived, expected \(size)")
        }
        let file = try ScratchFile(ConformancePattern.data(count: size))
        let upload = try context.request(
            server.baseURL.appendingPathComponent("upload"), method: .post,
            body: try UploadSource(fileURL: file.url))
        let verdict = try await context.text(try await context.send(upload, "the \(size)-byte upload").body)
        try context.expect(verdict == "ok", "upload of \(size) bytes from a file: \(verdict)")
    }

    /// Progress of finished transfers, as the transport reports it: every byte of an upload (from memory and from a
    /// file) reported sent against the body's length, so that ``NetCore/NetworkProgress/isUploadComplete`` holds
    /// once the upload is over; every byte of a download reported received against its declared length, on both
    /// roads (streamed, and collected whole); and the fraction below 1.0 throughout, because completion is the
    /// engine's word once the response is in, never the transport's.
    static let progress = TransportConformanceCheck("progress") { context in
        let size = 4 << 20
        let server = try context.server { request in
            request.method == "GET"
                ? .patterned(byteCount: size)
                : .text(request.body.count == size ? "ok" : "got \(request.body.count) bytes")
        }
        defer { server.stop() }
        let bytes = ConformancePattern.data(count: size)
        let file = try ScratchFile(bytes)
        let uploads: [(name: String, body: UploadSource)] = [
            ("an upload from memory", UploadSource(data: bytes)),
            ("an upload from a file", try UploadSource(fileURL: file.url)),
        ]
        for upload in uploads {
            let progress = NetworkProgress()
            progress.follow(.upload)
            let request = try context.request(server.baseURL, method: .post, body: upload.body, progress: progress)
            let verdict = try await context.text(try await context.send(request, upload.name).body)
            try context.expect(verdict == "ok", "\(upload.name): the server \(verdict)")
            try context.expect(
                progress.bytesSent == Int64(size) && progress.totalBytesToSend == Int64(size),
                "\(upload.name): \(progress.bytesSent) bytes reported sent of \(progress.totalBytesToSend.map(String.init) ?? "an unknown total"); expected \(size) of \(size)"
            )
            try context.expect(
                progress.isUploadComplete, "\(upload.name): isUploadComplete is false after the whole body was sent")
            try context.expect(
                progress.fractionCompleted < 1 && progress.outcome == nil,
                "\(upload.name): the transport completed the progress (\(progress.fractionCompleted)); only the engine may"
            )
        }

        for whole in [false, true] {
            let road = whole ? "a download collected whole" : "a streamed download"
            let progress = NetworkProgress()
            progress.follow(.download)
            var request = try context.request(server.baseURL, progress: progress)
            if whole { request = context.wholeBody(request) }
            let received = try await context.collect(try await context.send(request, road).body)
            try context.expect(received.count == size, "\(road): \(received.count) bytes arrived, expected \(size)")
            try context.expect(
                progress.bytesReceived == Int64(size) && progress.totalBytesToReceive == Int64(size),
                "\(road): \(progress.bytesReceived) bytes reported received of \(progress.totalBytesToReceive.map(String.init) ?? "an unknown total"); expected \(size) of \(size)"
            )
            try context.expect(
                progress.fractionCompleted >= 0.9 && progress.fractionCompleted < 1 && progress.outcome == nil,
                "\(road): the progress ended at \(progress.fractionCompleted); expected at least 0.9 and below 1.0, which only the engine reaches"
            )
        }
    }

    /// Upload progress moves while the body goes out, not only at the end: an upload to a server that never reads
    /// stalls once the socket buffers are full, and by then some bytes, not all, are reported sent; the upload is
    /// not complete; cancelling the caller's task ends it.
    static let progressWhileUploading = TransportConformanceCheck("progress while uploading") { context in
        let listener: LoopbackSilentListener
        do {
            listener = try LoopbackSilentListener()
        } catch {
            throw context.failure("could not start the silent listener: \(error)")
        }
        // More than any loopback socket buffers hold, so the upload stalls mid-way.
        let size = 64 << 20
        let progress = NetworkProgress()
        progress.follow(.upload)
        let request = try context.request(
            listener.baseURL.appendingPathComponent("upload"), method: .post,
            body: UploadSource(data: Data(count: size)), progress: progress)
        let transport = context.transport
        let sending = Task { _ = try await transport.send(request) }
        defer { sending.cancel() }
        try await context.await(progress, "no upload progress was reported while the body was going out") {
            $0.bytesSent > 0
        }
        let sent = progress.bytesSent
        try context.expect(
            sent < Int64(size) && !progress.isUploadComplete,
            "\(sent) of \(size) bytes reported sent to a server that reads nothing; the socket buffers cannot hold them all"
        )
        try context.expect(
            progress.totalBytesToSend == Int64(size),
            "the upload's length was reported as \(progress.totalBytesToSend.map(String.init) ?? "unknown"), expected \(size)"
        )
        try context.expect(
            progress.fractionCompleted < 1 && progress.outcome == nil, "the progress completed during a stalled upload")
        sending.cancel()
        try await context.expectCancellation("the stalled upload, cancelled") { try await sending.value }
        withExtendedLifetime(listener) {}
    }
}

extension UploadSource {
    /// Every byte of the body, read through a reader as a transport would.
    func readAll() throws -> Data {
        let reader = try makeReader()
        defer { reader.close() }
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        // Each round reads at least one byte or ends, so rounds ≤ length / 1 + 1; in practice length / 64 KiB.
        while true {
            let count = try reader.read(into: buffer)
            guard count > 0 else { return data }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}

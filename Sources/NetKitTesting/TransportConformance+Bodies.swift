import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
            let payload: RequestPayload
            let expected: Data
            /// `nil`: chunked.
            let contentLength: Int?
        }
        let cases = [
            Case(name: "data in memory", payload: .data(bytes), expected: bytes, contentLength: bytes.count),
            Case(name: "empty data", payload: .data(Data()), expected: Data(), contentLength: 0),
            Case(name: "a stream of known length", payload: .source(UploadSource(stream: InputStream(data: bytes), length: Int64(bytes.count))),
                 expected: bytes, contentLength: bytes.count),
            Case(name: "a stream of unknown length", payload: .source(UploadSource(stream: InputStream(data: bytes), length: nil)),
                 expected: bytes, contentLength: nil),
            Case(name: "a file", payload: .source(try UploadSource(fileURL: file.url)), expected: bytes, contentLength: bytes.count),
            Case(name: "a multipart form with a file", payload: .source(formSource), expected: formBytes, contentLength: formBytes.count),
            Case(name: "an upload source with a stream of unknown length",
                 payload: .source(UploadSource(segments: [.data(Data("head-".utf8)), .stream(SingleUseInputStream(InputStream(data: bytes)), length: nil)])),
                 expected: Data("head-".utf8) + bytes, contentLength: nil),
        ]
        for (index, bodyCase) in cases.enumerated() {
            let request = context.request(
                server.baseURL.appendingPathComponent("upload/\(index)"),
                method: "POST",
                headers: [(name: "Content-Type", value: "application/octet-stream")],
                payload: bodyCase.payload
            )
            let response = try await context.send(request, "POST \(bodyCase.name)")
            _ = try await context.collect(response.body)
            guard let seen = server.requests.last(where: { $0.path == "/upload/\(index)" }) else {
                throw context.failure("\(bodyCase.name): the server saw no request")
            }
            try context.expect(seen.body == bodyCase.expected, "\(bodyCase.name): the server got \(seen.body.count) bytes, not the \(bodyCase.expected.count) sent (or different ones)")
            if let length = bodyCase.contentLength {
                let declared = seen.contentLength ?? (length == 0 && !seen.wasChunked ? 0 : nil)
                try context.expect(!seen.wasChunked && declared == length,
                                   "\(bodyCase.name): sent \(seen.wasChunked ? "chunked" : "with Content-Length \(seen.contentLength.map(String.init) ?? "none")"), expected Content-Length \(length)")
            } else {
                try context.expect(seen.wasChunked, "\(bodyCase.name): a body of unknown length must go out chunked, went out with Content-Length \(seen.contentLength.map(String.init) ?? "none")")
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
            if let offset = ConformancePattern.firstMismatch(in: request.body, at: 0) { return .text("wrong byte at offset \(offset)") }
            return .text("ok")
        }
        defer { server.stop() }
        for path in ["/length", "/chunked"] {
            let response = try await context.send(context.request(server.baseURL.appendingPathComponent(path)), "GET \(path) (\(size) bytes)")
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
        let upload = context.request(server.baseURL.appendingPathComponent("upload"), method: "POST",
                                     payload: .source(try UploadSource(fileURL: file.url)))
        let verdict = try await context.text(try await context.send(upload, "the \(size)-byte upload").body)
        try context.expect(verdict == "ok", "upload of \(size) bytes from a file: \(verdict)")
    }

    /// Upload progress climbs to just below 1.0 as a body is sent (1.0 is the engine's word once the response is
    /// in), and so does download progress for a request without a body.
    static let progress = TransportConformanceCheck("progress") { context in
        let size = 4 << 20
        let server = try context.server { request in
            request.method == "GET" ? .patterned(byteCount: size) : .text("ok")
        }
        defer { server.stop() }
        let file = try ScratchFile(ConformancePattern.data(count: size))
        let uploadProgress = NetworkProgress()
        let upload = context.request(server.baseURL, method: "POST", payload: .source(try UploadSource(fileURL: file.url)), progress: uploadProgress)
        _ = try await context.collect(try await context.send(upload, "the upload").body)
        try context.expect(uploadProgress.fractionCompleted >= 0.9 && uploadProgress.fractionCompleted < 1,
                           "upload progress ended at \(uploadProgress.fractionCompleted); expected at least 0.9 (every byte reported) and below 1.0")

        let downloadProgress = NetworkProgress()
        let download = context.request(server.baseURL, progress: downloadProgress)
        _ = try await context.collect(try await context.send(download, "the download").body)
        try context.expect(downloadProgress.fractionCompleted >= 0.9 && downloadProgress.fractionCompleted < 1,
                           "download progress ended at \(downloadProgress.fractionCompleted); expected at least 0.9 and below 1.0")
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

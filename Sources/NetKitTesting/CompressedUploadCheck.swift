import Foundation
import LoopbackServer
import NetCore
import NetKitLock

/// A 1 MiB JSON body and a 5 MiB file, compressed by RequestCompressionPlugin and posted through `transport` to a
/// loopback server that checks each as a server would: `Content-Encoding`, a `Content-Length` equal to the bytes
/// received, and a body that inflates to what was sent.
package enum CompressedUploadCheck {
    struct Post: Endpoint {
        typealias Response = StatusCodeResponse
        var path: String
        var method: HTTPMethod { .post }
        var body: RequestBody?
    }

    /// What went wrong, as lines; empty when every check held.
    package static func run(_ coding: RequestBodyCoding, on transport: any HTTPTransport) async throws -> [String] {
        var problems: [String] = []
        func expect(_ holds: Bool, _ what: String) { if !holds { problems.append(what) } }
        let scratch = try Scratch()
        let json = jsonBody(1 << 20)
        let text = textBody(5 << 20)
        let file = try scratch.write("upload.json", text)
        let verdicts = Lock<[String]>([])
        let server = try LoopbackServer { request in
            let verdict = verdict(on: request, coding: coding, sent: request.path == "/file" ? text : json)
            verdicts.withLock { $0.append("\(request.path): \(verdict)") }
            return verdict == "ok" ? .text("ok") : .text(verdict, status: 422)
        }
        defer { server.stop() }
        let plugin = RequestCompressionPlugin(coding: coding, temporaryDirectory: scratch.url)
        let executor = RequestExecutor(transport: transport, plugins: [plugin])
        let inMemory = try await executor.send(
            Post(path: "/json", body: RequestBody(data: json, contentType: "application/json")),
            baseURL: server.baseURL)
        let fromFile = try await executor.send(
            Post(path: "/file", body: try RequestBody(fileURL: file)), baseURL: server.baseURL)
        let seen = verdicts.withLock { $0 }
        expect(seen == ["/json: ok", "/file: ok"], "the server's verdicts: \(seen)")
        expect(inMemory.statusCode == 200, "the body in memory got \(inMemory.statusCode)")
        expect(fromFile.statusCode == 200, "the file got \(fromFile.statusCode)")
        let requests = server.requests
        expect(requests.map(\.wasChunked) == [false, false], "a body was sent chunked")
        // Compressed: JSON by far, random letters by a third or so.
        expect(requests.first.map { $0.bodyByteCount < json.count / 4 } == true, "the JSON was not compressed")
        expect(requests.last.map { $0.bodyByteCount < text.count * 3 / 4 } == true, "the file was not compressed")
        // The compressed copy of the file is gone with its request.
        let left = try scratch.files()
        expect(left == ["upload.json"], "files left beside the upload: \(left)")
        expect(plugin.pendingTemporaryFiles.isEmpty, "the plugin still tracks a temporary file")
        return problems
    }

    /// "ok", or what the server would refuse the body for.
    private static func verdict(on request: LoopbackRequest, coding: RequestBodyCoding, sent: Data) -> String {
        let encoding = request.header("Content-Encoding")
        guard encoding == coding.contentEncoding else { return "Content-Encoding: \(encoding ?? "none")" }
        guard request.contentLength == request.body.count else {
            return "Content-Length \(request.contentLength.map(String.init) ?? "none"), \(request.body.count) received"
        }
        guard let inflated = try? Zlib.inflate(request.body, coding: coding) else {
            return "the body does not inflate as \(coding)"
        }
        guard inflated == sent else { return "the body inflates to \(inflated.count) other bytes" }
        return "ok"
    }

    /// About `count` bytes of JSON: an array of records, as an API would take.
    private static func jsonBody(_ count: Int) -> Data {
        var text = "["
        var index = 0
        while text.utf8.count < count {
            text += #"{"id":\#(index),"name":"user-\#(index)","active":\#(index % 3 == 0)},"#
            index += 1
        }
        text += "{}]"
        return Data(text.utf8)
    }

    /// `count` bytes of random lowercase letters in lines: compressible, but never by much. A 64 KiB block repeats,
    /// farther apart than deflate's 32 KiB window reaches.
    private static func textBody(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var block = Data(
            (0..<65_536).map { index in index % 80 == 79 ? 10 : UInt8.random(in: 97...122, using: &generator) })
        while block.count < count { block.append(block) }
        return block.prefix(count)
    }
}

/// A directory of the test's own, removed when dropped.
private final class Scratch: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(
            path: "netkit-compression-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func write(_ name: String, _ data: Data) throws -> URL {
        let file = url.appending(path: name, directoryHint: .notDirectory)
        try data.write(to: file)
        return file
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}

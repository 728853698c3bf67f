import CNetKitZlib
import Foundation
import LoopbackServer
import NetCore
import NetKitLock
import NetTransport
import Testing

/// RequestCompressionPlugin over URLSession, over loopback TCP: a body in memory and a file, each compressed with
/// gzip and with deflate, reach a server that inflates them to what was sent, framed by their compressed length.
/// The same check as AsyncHTTPClientRequestCompressionTests.
@Suite("URLSession transport: compressed request bodies", .timeLimit(.minutes(2)))
struct URLSessionRequestCompressionTests {
    @Test(
        "a 1 MiB JSON body and a 5 MiB file arrive compressed, framed and whole", arguments: RequestBodyCoding.allCases)
    func compressedBodies(_ coding: RequestBodyCoding) async throws {
        try await CompressedUploadCheck.run(coding, on: URLSessionTransport())
    }
}

/// A 1 MiB JSON body and a 5 MiB file, compressed by RequestCompressionPlugin and posted through `transport` to a
/// loopback server that checks each as a server would: `Content-Encoding`, a `Content-Length` equal to the bytes
/// received, and a body that inflates to what was sent.
private enum CompressedUploadCheck {
    struct Post: Endpoint {
        typealias Response = StatusCodeResponse
        var path: String
        var method: HTTPMethod { .post }
        var body: RequestBody?
    }

    static func run(_ coding: RequestBodyCoding, on transport: any HTTPTransport) async throws {
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
        #expect(verdicts.withLock { $0 } == ["/json: ok", "/file: ok"])
        #expect(inMemory.statusCode == 200)
        #expect(fromFile.statusCode == 200)
        let requests = server.requests
        #expect(requests.map(\.wasChunked) == [false, false])
        // Compressed: JSON by far, random letters by a third or so.
        #expect(requests.first.map { $0.bodyByteCount < json.count / 4 } == true)
        #expect(requests.last.map { $0.bodyByteCount < text.count * 3 / 4 } == true)
        // The compressed copy of the file is gone with its request.
        #expect(try scratch.files() == ["upload.json"])
        #expect(plugin.pendingTemporaryFiles.isEmpty)
    }

    /// "ok", or what the server would refuse the body for.
    static func verdict(on request: LoopbackRequest, coding: RequestBodyCoding, sent: Data) -> String {
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
    static func jsonBody(_ count: Int) -> Data {
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
    static func textBody(_ count: Int) -> Data {
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

/// zlib's inflate, to check what the plugin made with the library servers decode it with.
private enum Zlib {
    struct Failure: Error {
        let code: Int32
    }

    /// `data` inflated, accepting only the format of `coding` (gzip's or zlib's wrapper), and only a whole stream.
    static func inflate(_ data: Data, coding: RequestBodyCoding) throws -> Data {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let windowBits: Int32 = coding == .gzip ? 15 + 16 : 15
        guard CNetKitZlib_inflateInit2(stream, windowBits) == Z_OK else { throw Failure(code: Z_MEM_ERROR) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var code = Z_OK
        try data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while code != Z_STREAM_END {
                let produced = buffer.withUnsafeMutableBytes { target -> Int in
                    stream.pointee.next_out = target.bindMemory(to: Bytef.self).baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    code = CNetKitZlib.inflate(stream, Z_NO_FLUSH)
                    return target.count - Int(stream.pointee.avail_out)
                }
                guard code == Z_OK || code == Z_STREAM_END else { throw Failure(code: code) }
                output.append(contentsOf: buffer[..<produced])
                if code == Z_OK && produced == 0 && stream.pointee.avail_in == 0 { throw Failure(code: Z_BUF_ERROR) }
            }
            // Nothing may follow the end of the stream.
            guard stream.pointee.avail_in == 0 else { throw Failure(code: Z_DATA_ERROR) }
        }
        return output
    }
}

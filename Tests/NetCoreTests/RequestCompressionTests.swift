import Foundation
import NetCore
import NetKitLock
import NetKitTesting
import Testing

/// RequestCompressionPlugin without a network: its decisions, the bytes it makes (inflated back with zlib), the
/// temporary file of a body of files or streams and its removal however the request ends, and retries over a stub.
@Suite("Request compression: gzip and deflate request bodies")
struct RequestCompressionTests {
    // MARK: Decisions

    @Test("a body is left alone without a body, with its own Content-Encoding, or below the minimum")
    func leaves() throws {
        let small = UploadSource(data: Data(count: 1023))
        #expect(RequestCompressionDecision(body: nil, hasContentEncoding: false, minimumBytes: 0) == .leave(.noBody))
        #expect(
            RequestCompressionDecision(body: small, hasContentEncoding: true, minimumBytes: 0)
                == .leave(.alreadyEncoded))
        #expect(
            RequestCompressionDecision(body: small, hasContentEncoding: false, minimumBytes: 1024)
                == .leave(.belowMinimum))
        #expect(
            RequestCompressionDecision(
                body: UploadSource(stream: InputStream(data: Data(count: 10)), length: 10), hasContentEncoding: false,
                minimumBytes: 1024) == .leave(.belowMinimum))
    }

    @Test("memory is compressed in memory, off the pool when large; files and streams into a file")
    func compresses() throws {
        let scratch = try Scratch()
        let file = try scratch.write("body.bin", Data(count: 10))
        let decide = { (body: UploadSource) in
            RequestCompressionDecision(body: body, hasContentEncoding: false, minimumBytes: 1024)
        }
        #expect(decide(UploadSource(data: Data(count: 1024))) == .inMemory(offThread: false))
        #expect(
            decide(UploadSource(segments: [.data(Data(count: 200_000)), .data(Data(count: 200_000))]))
                == .inMemory(offThread: true))
        // The minimum counts the whole body, files included.
        let fileBody = try UploadSource(fileURL: file)
        let mixed = UploadSource(segments: [.data(Data(count: 2000)), .file(try UploadFile(url: file))])
        #expect(decide(fileBody) == .leave(.belowMinimum))
        #expect(RequestCompressionDecision(body: fileBody, hasContentEncoding: false, minimumBytes: 0) == .toFile)
        #expect(decide(mixed) == .toFile)
        // A stream of unknown length cannot be measured without being read.
        #expect(decide(UploadSource(stream: InputStream(data: Data(count: 10)), length: nil)) == .toFile)
    }

    // MARK: Bytes

    @Test(
        "gzip and deflate bodies inflate back to the input, each in its own format",
        arguments: RequestBodyCoding.allCases)
    func roundTrip(_ coding: RequestBodyCoding) async throws {
        let plugin = RequestCompressionPlugin(coding: coding)
        for input in [jsonBody(1 << 20), Data(count: 1024), randomText(300_000)] {
            let request = try await plugin.prepare(try post(UploadSource(data: input)), context: context(1))
            let body = try #require(request.body?.inMemoryData)
            #expect(request.value(forHeader: "Content-Encoding") == coding.contentEncoding)
            #expect(request.bodyLength == Int64(body.count))
            #expect(try Zlib.inflate(body, coding: coding) == input)
            #expect(Zlib.hasHeader(of: coding, body))
        }
        #expect(plugin.pendingTemporaryFiles.isEmpty)
    }

    @Test("the minimum is respected: one byte below it the body goes out as it is")
    func minimum() async throws {
        let plugin = RequestCompressionPlugin(minimumBytes: 2048)
        let below = try await plugin.prepare(try post(UploadSource(data: Data(count: 2047))), context: context(1))
        #expect(below.body?.inMemoryData == Data(count: 2047))
        #expect(below.value(forHeader: "Content-Encoding") == nil)
        let at = try await plugin.prepare(try post(UploadSource(data: Data(count: 2048))), context: context(2))
        #expect(at.value(forHeader: "Content-Encoding") == "gzip")
        #expect(try Zlib.inflate(try #require(at.body?.inMemoryData), coding: .gzip) == Data(count: 2048))
    }

    @Test("a request with its own Content-Encoding is never encoded again, whatever the coding")
    func ownContentEncoding() async throws {
        let input = jsonBody(100_000)
        for value in ["br", "gzip", "identity"] {
            var request = try post(UploadSource(data: input))
            try request.setHeader("Content-Encoding", value)
            let prepared = try await RequestCompressionPlugin().prepare(request, context: context(1))
            #expect(prepared.body == request.body)
            #expect(prepared.head == request.head)
        }
    }

    @Test("a Content-Length the request carried is dropped: the transport frames the compressed body")
    func contentLengthDropped() async throws {
        let input = jsonBody(10_000)
        var request = try post(UploadSource(data: input))
        try request.setHeader("Content-Length", String(input.count))
        let prepared = try await RequestCompressionPlugin().prepare(request, context: context(1))
        #expect(prepared.value(forHeader: "Content-Length") == nil)
        #expect(prepared.value(forHeader: "Content-Type") == "application/json")
        #expect(prepared.bodyLength ?? 0 < Int64(input.count))
    }

    // MARK: Files and streams

    @Test("a file body is compressed into a private temporary file, sent as a replayable file body")
    func fileBody() async throws {
        let scratch = try Scratch()
        let input = randomText(3 << 20)
        let source = try UploadSource(fileURL: try scratch.write("input.json", input))
        let plugin = RequestCompressionPlugin(coding: .deflate, temporaryDirectory: scratch.temporary)
        let request = try await plugin.prepare(try post(source), context: context(7))
        let body = try #require(request.body)
        guard case .file(let file) = try #require(body.segments.first), body.segments.count == 1 else {
            Issue.record("not one file segment: \(body.segments)")
            return
        }
        #expect(body.isReplayable)
        #expect(request.bodyLength == file.length)
        #expect(file.url.deletingLastPathComponent().standardizedFileURL == scratch.temporary.standardizedFileURL)
        #expect(try Scratch.status(of: file.url).st_mode & 0o777 == 0o600)
        #expect(try Zlib.inflate(try Data(contentsOf: file.url), coding: .deflate) == input)
        #expect(plugin.pendingTemporaryFiles == [file.url])
        // The engine's end of the request removes it.
        await plugin.didFinish(
            request, result: .failure(CancellationError()), metrics: RequestMetrics(), context: context(7))
        #expect(try scratch.temporaryFiles().isEmpty)
        #expect(plugin.pendingTemporaryFiles.isEmpty)
    }

    @Test("a stream is read once, in pieces of at most 64 KiB, written out as it is compressed, never held whole")
    func boundedStream() async throws {
        let scratch = try Scratch()
        let input = randomText(8 << 20)
        let probe = ProbeLog()
        let temporary = scratch.temporary
        let stream = ProbeStream(input) { requested, produced in
            // Half-way through, the compressed bytes so far must already be on disk, not gathered in memory.
            let written = produced >= input.count / 2 ? (try? Scratch.bytes(in: temporary)) ?? -1 : nil
            probe.record(requested: requested, writtenAtHalf: written)
        }
        let source = UploadSource(stream: stream, length: nil)
        let plugin = RequestCompressionPlugin(coding: .gzip, temporaryDirectory: temporary)
        let request = try await plugin.prepare(try post(source), context: context(3))
        #expect(source.isConsumed)
        #expect(probe.largestRequest <= 64 * 1024)
        #expect(probe.largestRequest > 0)
        #expect(
            try #require(probe.writtenAtHalf) > 256 * 1024,
            "written half-way: \(String(describing: probe.writtenAtHalf))")
        let body = try #require(request.body)
        #expect(body.isReplayable)
        #expect(body.length != nil)
        let reader = try body.makeReader()
        #expect(try Zlib.inflate(try readAll(reader), coding: .gzip) == input)
        await plugin.didFinish(
            request, result: .failure(CancellationError()), metrics: RequestMetrics(), context: context(3))
        #expect(try scratch.temporaryFiles().isEmpty)
    }

    @Test("no temporary file can be made: a typed error before anything is sent, and a stream is left unread")
    func noTemporaryFile() async throws {
        let scratch = try Scratch()
        let missing = scratch.url.appending(path: "missing", directoryHint: .isDirectory)
        let plugin = RequestCompressionPlugin(temporaryDirectory: missing)
        let stub = StubTransport { _, _ in .status(200) }
        let executor = RequestExecutor(transport: stub, plugins: [plugin])
        let source = UploadSource(stream: InputStream(data: randomText(10_000)), length: nil)
        await #expect(throws: RequestCompressionError.temporaryFileUnavailable(directory: missing, errno: ENOENT)) {
            _ = try await executor.send(
                Upload(body: RequestBody(source: source, contentType: "text/plain")), baseURL: base)
        }
        #expect(stub.requestCount == 0)
        #expect(!source.isConsumed)
    }

    @Test(
        "the temporary file is removed after a success, a failed status, a transport error and a later plugin's throw")
    func removedInEveryOutcome() async throws {
        let scratch = try Scratch()
        let input = randomText(1 << 20)
        let file = try scratch.write("input.txt", input)
        let plugin = RequestCompressionPlugin(temporaryDirectory: scratch.temporary)
        let seen = Lock<[Int]>([])
        let outcomes: [StubTransport.Reply] = [
            .status(200), .status(500), .failure(TransportError(.badResponse, detail: "test")),
        ]
        for reply in outcomes {
            let stub = StubTransport { request, _ in
                // While the request is sent, its file is there.
                seen.withLock { $0.append((try? scratch.temporaryFiles().count) ?? -1) }
                #expect(request.value(forHeader: "Content-Encoding") == "gzip")
                return reply
            }
            let executor = RequestExecutor(transport: stub, plugins: [plugin])
            _ = try? await executor.send(Upload(body: try RequestBody(fileURL: file)), baseURL: base)
            #expect(try Zlib.inflate(try #require(stub.requests.first?.body), coding: .gzip) == input)
            #expect(try scratch.temporaryFiles().isEmpty)
        }
        #expect(seen.withLock { $0 } == [1, 1, 1])
        // A plugin after this one fails the request in `prepare`: the file made before is removed too.
        let executor = RequestExecutor(
            transport: StubTransport { _, _ in .status(200) }, plugins: [plugin, FailingPreparation()])
        await #expect(throws: FailingPreparation.Failure.self) {
            _ = try await executor.send(Upload(body: try RequestBody(fileURL: file)), baseURL: base)
        }
        #expect(try scratch.temporaryFiles().isEmpty)
        #expect(plugin.pendingTemporaryFiles.isEmpty)
    }

    @Test("the temporary file is removed when the caller cancels while the body is sent")
    func removedOnCancellation() async throws {
        let scratch = try Scratch()
        let file = try scratch.write("input.txt", randomText(1 << 20))
        let plugin = RequestCompressionPlugin(temporaryDirectory: scratch.temporary)
        let gate = StubGate()
        let stub = StubTransport { _, _ in StubTransport.Reply.status(200).held(by: gate) }
        let executor = RequestExecutor(transport: stub, plugins: [plugin])
        let sending = Task { try await executor.send(Upload(body: try RequestBody(fileURL: file)), baseURL: base) }
        await gate.waitForArrivals(1)
        #expect(try scratch.temporaryFiles().count == 1)
        sending.cancel()
        await #expect(throws: CancellationError.self) { _ = try await sending.value }
        #expect(try scratch.temporaryFiles().isEmpty)
        #expect(plugin.pendingTemporaryFiles.isEmpty)
    }

    // MARK: Replays

    @Test("a retry after 503 sends the same compressed bytes again, from memory and from a file")
    func retrySendsSameBytes() async throws {
        let scratch = try Scratch()
        let input = jsonBody(200_000)
        let file = try scratch.write("input.json", input)
        let plugin = RequestCompressionPlugin(coding: .deflate, temporaryDirectory: scratch.temporary)
        for body in [RequestBody(data: input, contentType: "application/json"), try RequestBody(fileURL: file)] {
            let stub = StubTransport { _, index in index == 0 ? .status(503) : .status(200) }
            let executor = RequestExecutor(transport: stub, plugins: [plugin])
            var upload = Upload(body: body)
            upload.retryPolicy = RetryPolicy(maxRetryCount: 1, delay: 0, jitter: .none)
            _ = try await executor.send(upload, baseURL: base)
            let sent = stub.requests
            #expect(sent.count == 2)
            #expect(sent.first?.body == sent.last?.body)
            #expect(sent.allSatisfy { $0.value(forHeader: "Content-Encoding") == "deflate" })
            #expect(try Zlib.inflate(try #require(sent.last?.body), coding: .deflate) == input)
            #expect(try scratch.temporaryFiles().isEmpty)
        }
    }

    @Test("the plugin takes part in prepare and didFinish only: no call per attempt")
    func hooks() {
        #expect(RequestCompressionPlugin().hooks == [.prepare, .didSucceed, .didFail])
    }
}

// MARK: - Fixtures

private let base = URL(string: "https://api.test")!

private func post(_ body: UploadSource) throws -> TransportRequest {
    TransportRequest(
        head: try HTTPRequestHead(
            method: .post, url: base.appending(path: "upload"),
            headerFields: HTTPHeaderFields(["Content-Type": "application/json"])),
        body: body)
}

private func context(_ number: UInt64) -> PluginContext {
    PluginContext(requestNumber: number, attempt: 0, reason: .initial, isStreaming: false)
}

/// An upload the engine sends, retried after 503 when its policy says so (`PUT`: idempotent).
private struct Upload: Endpoint {
    typealias Response = EmptyResponse
    var path: String { "/upload" }
    var method: HTTPMethod { .put }
    var body: RequestBody?
    var retryPolicy = RetryPolicy()
}

/// A plugin that fails every request in `prepare`.
private struct FailingPreparation: Plugin {
    struct Failure: Error {}
    var priority: PluginPriority { .low }
    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        throw Failure()
    }
}

/// About `count` bytes of JSON: an array of records, as an API would take.
private func jsonBody(_ count: Int) -> Data {
    var text = "["
    var index = 0
    while text.utf8.count < count {
        text += #"{"id":\#(index),"name":"user-\#(index)","active":\#(index % 3 == 0)},"#
        index += 1
    }
    text += "{}]"
    return Data(text.utf8)
}

/// `count` bytes of random lowercase letters: compressible, but never by much, so output follows input closely.
/// A 64 KiB block repeats, farther apart than deflate's 32 KiB window reaches.
private func randomText(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    var block = Data((0..<65_536).map { _ in UInt8.random(in: 97...122, using: &generator) })
    while block.count < count { block.append(block) }
    return block.prefix(count)
}

private func readAll(_ reader: UploadReader) throws -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return data }
        data.append(contentsOf: buffer[..<count])
    }
}

/// A directory of the test's own, with a subdirectory for the plugin's temporary files; removed when dropped.
private final class Scratch: Sendable {
    let url: URL
    var temporary: URL { url.appending(path: "tmp", directoryHint: .isDirectory) }

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(
            path: "netkit-compression-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(
            at: url.appending(path: "tmp", directoryHint: .isDirectory), withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func write(_ name: String, _ data: Data) throws -> URL {
        let file = url.appending(path: name, directoryHint: .notDirectory)
        try data.write(to: file)
        return file
    }

    func temporaryFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temporary.path)
    }

    /// The bytes of the files in `directory`, together.
    static func bytes(in directory: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).reduce(0) { total, name in
            let size = try status(of: directory.appending(path: name)).st_size
            return total + Int(size)
        }
    }

    /// `stat(2)` of `url`.
    static func status(of url: URL) throws -> stat {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        return info
    }
}

/// What a ``ProbeStream`` saw: the largest read asked of it, and the bytes on disk when half the stream was read.
private final class ProbeLog: Sendable {
    private let state = Lock<(largest: Int, writtenAtHalf: Int?)>((0, nil))

    var largestRequest: Int { state.withLock { $0.largest } }
    var writtenAtHalf: Int? { state.withLock { $0.writtenAtHalf } }

    func record(requested: Int, writtenAtHalf: Int?) {
        state.withLock { state in
            state.largest = max(state.largest, requested)
            if state.writtenAtHalf == nil { state.writtenAtHalf = writtenAtHalf }
        }
    }
}

/// A stream that serves `data` and tells each read: how much was asked, and how much it had served before.
private final class ProbeStream: InputStream {
    private let data: Data
    private let onRead: @Sendable (_ requested: Int, _ produced: Int) -> Void
    private var produced = 0
    private var status: Stream.Status = .notOpen

    init(_ data: Data, onRead: @escaping @Sendable (_ requested: Int, _ produced: Int) -> Void) {
        self.data = data
        self.onRead = onRead
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { nil }
    override var hasBytesAvailable: Bool { produced < data.count }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        onRead(length, produced)
        let count = min(length, data.count - produced)
        data.copyBytes(to: buffer, from: produced..<(produced + count))
        produced += count
        return count
    }
}

import Foundation
import NetKit
import NetKitLock
import NetKitTesting
import Testing

/// The download road over a stub transport: what no range server is needed to show.
@Suite("Downloads over a stub transport")
struct DownloadEngineTests {
    struct File: NetworkRequest {
        typealias Response = Data
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-download-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func manager(_ replies: [StubTransport.Reply]) -> (NetworkManager, StubTransport) {
        let stub = StubTransport(replies: replies)
        return (NetworkManager(baseURL: URL(string: "https://files.test")!, transport: stub), stub)
    }

    @Test("a status error before any byte leaves no partial file and no state behind")
    func notFoundLeavesNothing() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let (manager, _) = Self.manager([.text("no such file", status: 404)])
        await #expect(throws: HTTPError.self) { try await manager.download(File(), to: destination) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a body of unknown length completes when it ends cleanly, with progress that never counts a byte twice")
    func unknownLength() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let pieces = (0..<5).map { Data(repeating: UInt8($0), count: 1000) }
        let (manager, stub) = Self.manager([StubTransport.Reply(status: 200, chunks: pieces)])
        var seen: [Int64] = []
        let file = try await manager.download(File(), to: destination) { seen.append($0.completedBytes) }
        #expect(file.byteCount == 5000)
        #expect(seen == [1000, 2000, 3000, 4000, 5000])
        #expect(try Data(contentsOf: destination) == pieces.reduce(Data(), +))
        #expect(stub.requests.first?.value(forHeader: "Accept-Encoding") == "identity")
        #expect(stub.requests.first?.value(forHeader: "Range") == nil)
    }

    @Test("a body shorter than its length that ends without an error is asked for again, never taken as complete")
    func shortCleanEnd() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let whole = Data((0..<2000).map { UInt8(truncatingIfNeeded: $0) })
        let headers = ["Content-Length": "2000", "ETag": #""v1""#, "Accept-Ranges": "bytes"]
        let (manager, stub) = Self.manager([
            StubTransport.Reply(status: 200, headers: headers, chunks: [whole.prefix(1500)]),
            StubTransport.Reply(
                status: 206, headers: ["Content-Range": "bytes 1500-1999/2000", "ETag": #""v1""#],
                chunks: [whole.suffix(500)]),
        ])
        let file = try await manager.download(File(), to: destination)
        #expect(file.byteCount == 2000 && file.resumes == 1)
        #expect(stub.requests.last?.value(forHeader: "Range") == "bytes=1500-")
        #expect(stub.requests.last?.value(forHeader: "If-Range") == #""v1""#)
        #expect(try Data(contentsOf: destination) == whole)
    }

    @Test("a server that keeps answering without progress stops at maximumRequests, keeping what it wrote")
    func requestFloor() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let headers = ["Content-Length": "10", "ETag": #""v1""#, "Accept-Ranges": "bytes"]
        // Every answer is the same 200 with 4 of its 10 bytes, ending cleanly: each starts over.
        let stub = StubTransport { _, _ in
            StubTransport.Reply(status: 200, headers: headers, chunks: [Data([1, 2, 3, 4])])
        }
        let manager = NetworkManager(baseURL: URL(string: "https://files.test")!, transport: stub)
        await #expect {
            try await manager.download(File(), to: destination, options: DownloadOptions(maximumRequests: 5))
        } throws: { error in
            guard case DownloadError.tooManyRequests(let limit) = error else { return false }
            return limit == 5
        }
        #expect(stub.requests.count == 5)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("the resume state names no URL, header or credential")
    func stateHoldsNoSecret() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let headers = ["Content-Length": "10", "ETag": #""v1""#, "Accept-Ranges": "bytes"]
        let (manager, _) = Self.manager([
            StubTransport.Reply(
                status: 200, headers: headers, chunks: [Data([1, 2, 3])], bodyError: TransportError(.connectionLost))
        ])
        await #expect(throws: DownloadError.self) {
            try await manager.download(File(), to: destination, accessToken: { "secret-token" })
        }
        let stateFile = DownloadOptions.stateFile(for: DownloadOptions.partialFile(for: destination))
        let text = try String(contentsOf: stateFile, encoding: .utf8)
        #expect(!text.contains("secret-token") && !text.contains("files.test") && text.contains("v1"))
        #expect(DownloadResumeState.saved(at: stateFile)?.bytesOnDisk == 3)
    }
}

extension DownloadEngineTests {
    @Test("a transport whose buffer for a slow consumer gave out is resumed at once, whatever the retry policy")
    func bufferOverrunResumes() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let whole = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let headers = ["Content-Length": "3000", "ETag": #""v1""#, "Accept-Ranges": "bytes"]
        let (manager, stub) = Self.manager([
            StubTransport.Reply(
                status: 200, headers: headers, chunks: [whole.prefix(1000)],
                bodyError: ResponseBodyError.spillFailed(reason: "the disk fell behind")),
            StubTransport.Reply(
                status: 206, headers: ["Content-Range": "bytes 1000-2999/3000", "ETag": #""v1""#],
                chunks: [whole.dropFirst(1000).prefix(1000)],
                bodyError: StreamingError.bufferLimitExceeded(limitBytes: 16)),
            StubTransport.Reply(
                status: 206, headers: ["Content-Range": "bytes 2000-2999/3000", "ETag": #""v1""#],
                chunks: [whole.suffix(1000)]),
        ])
        // The request's policy retries nothing: only an overrun after progress is resumed this way.
        let file = try await manager.download(File(), to: destination)
        #expect(file.resumes == 2)
        #expect(stub.requests.map { $0.value(forHeader: "Range") } == [nil, "bytes=1000-", "bytes=2000-"])
        #expect(try Data(contentsOf: destination) == whole)
    }
}

/// A transport that pushes each reply's body into NetKit's buffer, as URLSession's delegate does. The first reply's
/// body stays open, so that the test can push more after the consumer has gone (what a transfer that cannot stop at
/// once still delivers); every later one ends after its chunks.
final class PushingTransport: HTTPTransport, Sendable {
    struct Exchange: Sendable {
        let range: String?
        let writer: ResponseBody.Writer
    }

    private let replies: Lock<[(status: Int, headers: [String: String], chunks: [Data])]>
    private let exchanges = Lock<[Exchange]>([])
    /// Yields once for each transfer NetKit told to stop.
    let stops: AsyncStream<Void>
    private let stopped: AsyncStream<Void>.Continuation

    init(_ replies: [(status: Int, headers: [String: String], chunks: [Data])]) {
        self.replies = Lock(replies)
        (stops, stopped) = AsyncStream.makeStream()
    }

    /// The exchanges so far: the `Range` each asked for and its body's writer.
    var sent: [Exchange] { exchanges.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let reply = replies.withLock { $0.removeFirst() }
        let stopped = self.stopped
        let (body, writer) = ResponseBody.makeBuffered { stopped.yield() }
        for chunk in reply.chunks { writer.yield(chunk) }
        let isFirst = exchanges.withLock { exchanges in
            exchanges.append(Exchange(range: request.value(forHeader: "Range"), writer: writer))
            return exchanges.count == 1
        }
        if !isFirst { writer.finish() }
        return TransportResponse(
            head: HTTPResponseHead(statusCode: reply.status, headerFields: try HTTPHeaderFields(reply.headers)),
            body: body)
    }

    func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    { nil }
}

extension DownloadEngineTests {
    /// Starts a download that cancels itself as soon as its first bytes are written, as a cancel button would, and
    /// expects `CancellationError`; once NetKit has told the transfer to stop, the transfer delivers `late` and ends
    /// with its cancellation, as URLSession on Linux may.
    func cancelFirstCall(
        of manager: NetworkManager, on transport: PushingTransport, to destination: URL, thenDelivering late: Data
    ) async throws {
        let first = Task {
            try await manager.download(File(), to: destination) { _ in withUnsafeCurrentTask { $0?.cancel() } }
        }
        await #expect(throws: CancellationError.self) { try await first.value }
        var stops = transport.stops.makeAsyncIterator()
        #expect(await stops.next() != nil)
        let cut = try #require(transport.sent.first)
        cut.writer.yield(late)
        cut.writer.finish(throwing: TransportError(.cancelled, detail: "cancelled"))
    }

    @Test("bytes a cancelled transfer still delivers are written, and the next call asks only for the rest")
    func cancelledTransferKeepsWhatArrives() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let whole = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let transport = PushingTransport([
            (200, ["Content-Length": "3000", "ETag": #""v1""#, "Accept-Ranges": "bytes"], [whole.prefix(1000)]),
            (206, ["Content-Range": "bytes 2000-2999/3000", "ETag": #""v1""#], [whole.suffix(1000)]),
        ])
        let manager = NetworkManager(baseURL: URL(string: "https://files.test")!, transport: transport)
        // 1000 more bytes arrive after the cancellation.
        try await cancelFirstCall(
            of: manager, on: transport, to: destination, thenDelivering: whole.dropFirst(1000).prefix(1000))

        let file = try await manager.download(File(), to: destination)
        #expect(transport.sent.map(\.range) == [nil, "bytes=2000-"])
        #expect(file.byteCount == 3000)
        #expect(try Data(contentsOf: destination) == whole)
    }

    @Test("what a cancelled transfer still delivers is written up to the resource's length, never past it")
    func cancelledTransferWritesNothingPastTheEnd() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let whole = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        let transport = PushingTransport([
            (200, ["Content-Length": "3000", "ETag": #""v1""#, "Accept-Ranges": "bytes"], [whole.prefix(1000)]),
            (416, ["Content-Range": "bytes */3000"], []),
        ])
        let manager = NetworkManager(baseURL: URL(string: "https://files.test")!, transport: transport)
        // A transfer that delivers more than the resource holds: what is past its length is not written.
        try await cancelFirstCall(
            of: manager, on: transport, to: destination,
            thenDelivering: whole.dropFirst(1000) + Data(repeating: 0xEE, count: 500))

        let file = try await manager.download(File(), to: destination)
        #expect(transport.sent.map(\.range) == [nil, "bytes=3000-"])
        #expect(file.byteCount == 3000)
        #expect(try Data(contentsOf: destination) == whole)
    }
}

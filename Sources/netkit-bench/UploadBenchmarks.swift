import NetKitDigest
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKit
import NetKitLock

// `uploads`: multipart encoding in memory, and a large file uploaded as one multipart part over loopback by
// NetKit (`NetworkManager.send`, and `URLSessionTransport` alone), by a plain URLSession from one `Data`, and by a
// plain URLSession from `InputStream(url:)` (completion handler, and through a session delegate as any client
// that streams or reports progress must), each in a fresh child process whose peak RSS (VmHWM) and CPU time are
// its own. An idle child that made one request is the memory reference. The server runs in this process: in
// digest mode (SHA-256 of the body and of every part) for one round that checks each case's upload byte for
// byte, and in counted mode for the timed rounds, because hashing would otherwise be the limit of every case.
//
//   netkit-bench uploads [rounds]                       (rounds capped at 5; the file is 1 GiB)
//   NETKIT_BENCH_UPLOAD_MIB=256 netkit-bench uploads 3  (a smaller file for a quick look)

/// Runs the `uploads` case (also for `all`) or, in a child, one upload. Returns `true` when the process
/// should stop here: the case was asked for alone, or this process is a child.
func runUploadBenchmarks(selected: String, arguments: [String], rounds: Int) async throws -> Bool {
    switch selected {
    case UploadChild.command:
        try await UploadChild.run(Array(arguments.dropFirst()))
        return true
    case UploadBenchmarks.encodingCommand:
        try UploadBenchmarks(rounds: min(max(rounds, 1), 5)).encodingCase()
        return true
    case "uploads":
        try await UploadBenchmarks(rounds: min(max(rounds, 1), 5)).run()
        return true
    case "all":
        try await UploadBenchmarks(rounds: min(max(rounds, 1), 5)).run()
        return false
    default:
        return false
    }
}

/// The parent side: encoding figures in-process, then every upload case in its own child.
struct UploadBenchmarks {
    let rounds: Int
    let clock = ContinuousClock()
    let fileBytes: Int = {
        let mebibytes = ProcessInfo.processInfo.environment["NETKIT_BENCH_UPLOAD_MIB"].flatMap(Int.init) ?? 1024
        return max(1, mebibytes) << 20
    }()
    /// Fixed, so every case sends the same bytes and the server's digests can be compared.
    static let boundary = "netkit-bench-upload-boundary"

    /// The child that measures encoding, so the forms it builds (hundreds of MiB) count against no one's peak.
    static let encodingCommand = "upload-encoding"

    func run() async throws {
        print("## uploads")
        print("")
        try runEncodingChild()
        try await transferCase()
    }

    /// Runs ``encodingCase()`` in a child process that prints straight to this process's output.
    func runEncodingChild() throws {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [Self.encodingCommand, String(rounds)]
        // What was printed so far must come out before the child's lines.
        fflush(nil)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw UploadChild.Failure(description: "the encoding child exited with \(process.terminationStatus)")
        }
    }

    // MARK: Encoding in memory

    /// `encoded()` (form → one `Data`) and the upload reader drained into a 64 KiB buffer, for a form with
    /// one 64 MiB part and for a form of 10,000 small fields.
    func encodingCase() throws {
        var large = MultipartFormData(boundary: Self.boundary)
        large.addField(name: "title", value: "benchmark")
        large.addPart(name: "blob", data: pattern(64 << 20), mimeType: "application/octet-stream", filename: "blob.bin")
        var small = MultipartFormData(boundary: Self.boundary)
        for index in 0..<10_000 {
            small.addField(name: "field-\(index)", value: String(repeating: "v", count: 100))
        }
        let samples = max(5, rounds * 3)
        print("### encoding in memory (medians of \(samples))")
        print("| form | bytes | form → Data (`encoded()`) | form → reader drained (64 KiB reads) |")
        print("| --- | --- | --- | --- |")
        for (name, form) in [("one 64 MiB part", large), ("10,000 fields of 100 B", small)] {
            var encoded = Measurement(name: "encoded")
            var drained = Measurement(name: "drained")
            for _ in 0..<samples {
                encoded.samples.append(try clock.measure { _ = try form.encoded() })
                drained.samples.append(try clock.measure { _ = try drain(try form.uploadSource()) })
            }
            let bytes = Double(form.contentLength)
            print(
                "| \(name) | \(form.contentLength) | \(megabytesPerSecond(bytes, encoded.median)) | \(megabytesPerSecond(bytes, drained.median)) |"
            )
        }
        print("")
    }

    // MARK: Uploads over loopback

    func transferCase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-bench-uploads-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("payload.bin")
        let fileSHA256 = try writePattern(to: file, bytes: fileBytes)
        // The same multipart body as one file, for the baselines (which have no multipart encoder of their own).
        let body = directory.appendingPathComponent("body.multipart")
        let form = try UploadChild.form(file: file)
        let bodyBytes = try writeBody(of: form, to: body)

        // A file that has just been written is in the page cache; read it once more so every case starts warm.
        _ = try drain(UploadSource(fileURL: file))
        let fileReadSeconds = try clock.measure { _ = try drain(UploadSource(fileURL: file)) }

        let limits = LoopbackLimits(maxRecordedRequests: 0)
        let digesting = try LoopbackServer(limits: limits, requestBodies: .digested) { .json(ServerView($0).json) }
        defer { digesting.stop() }
        let counting = try LoopbackServer(limits: limits, requestBodies: .counted) { .json(ServerView($0).json) }
        defer { counting.stop() }

        let cases = UploadChild.Case.allCases
        var checked: [UploadChild.Case: UploadChild.Result] = [:]
        for uploadCase in cases {
            checked[uploadCase] = try runChild(uploadCase, server: digesting.baseURL, file: file, body: body)
        }
        var results: [UploadChild.Case: [UploadChild.Result]] = [:]
        for _ in 0..<rounds {
            for uploadCase in cases {
                let result = try runChild(uploadCase, server: counting.baseURL, file: file, body: body)
                results[uploadCase, default: []].append(result)
            }
        }

        print(
            "### \(fileBytes >> 20) MiB file as one multipart part over loopback (each case a fresh process; \(rounds) timed rounds, medians)"
        )
        print(
            "Body: \(bodyBytes) bytes. Timed rounds against LoopbackServer in counted mode; one more round per case in digest mode checks the bytes (SHA-256 of the body and of each part) and is bound by the server's hashing."
        )
        print(
            "Reading the file alone through NetKit's reader (warm page cache): \(megabytesPerSecond(Double(fileBytes), fileReadSeconds))."
        )
        print("")
        print(
            "| case | framing | throughput | client CPU per GiB | peak RSS (VmHWM) | above idle | digest round | body verified |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        let idlePeak = median(results[.idle, default: []].map(\.peakKiB))
        var throughput: [UploadChild.Case: Double] = [:]
        var peaks: [UploadChild.Case: Double] = [:]
        for uploadCase in cases {
            let runs = results[uploadCase, default: []]
            let peak = median(runs.map(\.peakKiB))
            peaks[uploadCase] = peak
            var verified = false
            if let check = checked[uploadCase] {
                verified = verify(check, case: uploadCase, bodyBytes: bodyBytes, fileSHA256: fileSHA256)
            }
            let expectedCount = uploadCase == .idle ? 0 : Int(bodyBytes)
            for run in runs where run.status != 200 || run.byteCount != expectedCount {
                verified = false
            }
            guard uploadCase != .idle else {
                print(
                    "| \(uploadCase.title) | – | – | \(format(median(runs.map(\.cpuSeconds)), 2)) s in all | \(format(peak / 1024, 1)) MiB | – | – | \(verified ? "yes" : "**NO**") |"
                )
                continue
            }
            let spread = runs.map { Double(bodyBytes) / $0.seconds / 1e6 }
            let rate = median(spread)
            throughput[uploadCase] = rate
            let digestRate = checked[uploadCase].map { Double(bodyBytes) / $0.seconds / 1e6 } ?? 0
            let framing = runs.first?.wasChunked == true ? "chunked" : "Content-Length"
            let idleCPU = median(results[.idle, default: []].map(\.cpuSeconds))
            let cpuPerGiB = median(runs.map { ($0.cpuSeconds - idleCPU) * Double(1 << 30) / Double(bodyBytes) })
            print(
                "| \(uploadCase.title) | \(framing) | \(format(rate, 0)) MB/s (\(format(spread.min() ?? 0, 0))–\(format(spread.max() ?? 0, 0))) | \(format(cpuPerGiB, 2)) s | \(format(peak / 1024, 1)) MiB | \(format((peak - idlePeak) / 1024, 1)) MiB | \(format(digestRate, 0)) MB/s | \(verified ? "yes" : "**NO**") |"
            )
        }
        let above = ((peaks[.netkit] ?? 0) - idlePeak) / 1024
        let ratio = (throughput[.netkit] ?? 0) / max(throughput[.stream] ?? 1, 1e-9)
        print("")
        print(
            "NetKit peak above the idle process: \(format(above, 1)) MiB (target ≤ 32 MiB): \(above <= 32 ? "met" : "MISSED")"
        )
        print(
            "NetKit throughput / raw httpBodyStream: \(format(ratio, 2)) (target ≥ 0.90): \(ratio >= 0.9 ? "met" : "MISSED")"
        )
        print("")
    }

    /// Whether the server saw exactly the body every case should send (the idle case: one empty GET).
    func verify(_ result: UploadChild.Result, case uploadCase: UploadChild.Case, bodyBytes: Int64, fileSHA256: String)
        -> Bool
    {
        guard result.status == 200, let view = result.view else { return false }
        guard uploadCase != .idle else { return view.bodyByteCount == 0 }
        guard view.bodyByteCount == Int(bodyBytes), let parts = view.parts, parts.count == 2 else { return false }
        let file = parts[1]
        return file.name == "file" && file.filename == "payload.bin" && file.byteCount == fileBytes
            && file.sha256 == fileSHA256
    }

    /// Starts `netkit-bench upload-child …` and reads its one result line.
    func runChild(_ uploadCase: UploadChild.Case, server: URL, file: URL, body: URL) throws -> UploadChild.Result {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [UploadChild.command, uploadCase.rawValue, server.absoluteString, file.path, body.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix(UploadChild.resultPrefix) })
        else {
            throw UploadChild.Failure(
                description: "child \(uploadCase.rawValue) exited with \(process.terminationStatus): \(text)")
        }
        return try JSONDecoder().decode(
            UploadChild.Result.self, from: Data(line.dropFirst(UploadChild.resultPrefix.count).utf8))
    }

    /// Writes `bytes` of a repeating pattern to `url` in 1 MiB pieces and returns its SHA-256.
    func writePattern(to url: URL, bytes: Int) throws -> String {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw UploadChild.Failure(description: "cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let piece = pattern(1 << 20)
        var hash = SHA256()
        var written = 0
        while written < bytes {
            let slice = piece.prefix(bytes - written)
            try handle.write(contentsOf: slice)
            hash.update(slice)
            written += slice.count
        }
        return SHA256.hex(hash.finalize())
    }

    /// Writes the whole multipart body of `form` to `url`, through NetKit's reader; returns its length.
    func writeBody(of form: MultipartFormData, to url: URL) throws -> Int64 {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw UploadChild.Failure(description: "cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let reader = try form.uploadSource().makeReader()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = try reader.read(into: buffer)
            guard count > 0 else { break }
            try handle.write(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
        }
        return total
    }
}

/// Reads a whole body through an `UploadReader` with 64 KiB reads, as URLSession asks for it.
func drain(_ source: UploadSource) throws -> Int64 {
    let reader = try source.makeReader()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while true {
        let count = try reader.read(into: buffer)
        guard count > 0 else { return total }
        total += Int64(count)
    }
}

/// Bytes that differ from offset to offset (a 251-byte cycle), built by doubling.
func pattern(_ count: Int) -> Data {
    var data = Data((0..<251).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
    while data.count < count { data.append(data) }
    return data.prefix(count)
}

func megabytesPerSecond(_ bytes: Double, _ duration: Duration) -> String {
    "\(format(bytes / Measurement.seconds(duration) / 1e6, 0)) MB/s"
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// The child side: one upload (or the idle reference), then its timing and peak RSS on stdout.
enum UploadChild {
    static let command = "upload-child"
    static let resultPrefix = "UPLOAD-RESULT "

    enum Case: String, CaseIterable, Codable {
        case idle, netkit, data, stream, streamDelegate, transport

        var title: String {
            switch self {
            case .idle: "idle process (one small request)"
            case .netkit: "NetKit `send`, multipart form with the file part"
            case .data: "URLSession `uploadTask(from: Data)` of the body"
            case .stream: "URLSession `httpBodyStream = InputStream(url:)` of the body"
            case .streamDelegate: "same, through a session delegate (as a streaming client must)"
            case .transport: "URLSessionTransport alone"
            }
        }
    }

    struct Result: Codable {
        let seconds: Double
        /// User plus system CPU time of the whole child process.
        let cpuSeconds: Double
        let peakKiB: Double
        let status: Int
        let view: ServerView?

        /// The body length the server saw; -1 without an answer.
        var byteCount: Int { view?.bodyByteCount ?? -1 }
        /// Whether the body went out chunked.
        var wasChunked: Bool { view?.wasChunked ?? false }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// POSTs a form; the server answers with what it saw.
    struct SendForm: NetworkRequest {
        typealias Response = ServerView
        let form: MultipartFormData
        var path: String { "/upload" }
        var method: HTTPMethod { .post }
        var multipartData: MultipartFormData? { form }
    }

    /// A small GET: the idle reference's one request.
    struct Ping: NetworkRequest {
        typealias Response = ServerView
        var path: String { "/ping" }
        var method: HTTPMethod { .get }
    }

    /// The form every case sends: one field and the file as one part.
    static func form(file: URL) throws -> MultipartFormData {
        var form = MultipartFormData(boundary: UploadBenchmarks.boundary)
        form.addField(name: "title", value: "benchmark")
        try form.addPart(name: "file", fileURL: file, mimeType: "application/octet-stream", filename: "payload.bin")
        return form
    }

    /// `upload-child <case> <server URL> <file> <body file>`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 4, let uploadCase = Case(rawValue: arguments[0]),
            let server = URL(string: arguments[1])
        else {
            throw Failure(
                description: "usage: netkit-bench \(command) <idle|netkit|data|stream> <server URL> <file> <body file>")
        }
        let file = URL(fileURLWithPath: arguments[2])
        let body = URL(fileURLWithPath: arguments[3])
        let clock = ContinuousClock()
        let status: Int
        let view: ServerView?
        let start: ContinuousClock.Instant
        switch uploadCase {
        case .idle:
            start = clock.now
            view = try await NetworkManager(baseURL: server).send(Ping(), accessToken: nil)
            status = 200
        case .netkit:
            let manager = NetworkManager(baseURL: server)
            let form = try form(file: file)
            start = clock.now
            view = try await manager.send(SendForm(form: form), accessToken: nil)
            status = 200
        case .data:
            let bytes = try Data(contentsOf: body)
            let session = URLSession(configuration: .default)
            start = clock.now
            (status, view) = try await upload(session: session) { session, done in
                session.uploadTask(with: request(server), from: bytes, completionHandler: done)
            }
        case .transport:
            let transport = URLSessionTransport()
            let source = try form(file: file).uploadSource()
            start = clock.now
            var upload = try TransportRequest(request(server))
            upload.body = source
            let response = try await transport.send(upload)
            let data = try await response.body.collect(upTo: 1 << 20)
            status = response.statusCode
            view = try? JSONDecoder().decode(ServerView.self, from: data)
        case .streamDelegate:
            let delegate = CollectingDelegate()
            let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
            var streamed = request(server)
            streamed.httpBodyStream = InputStream(url: body)
            let prepared = streamed
            start = clock.now
            let (data, response) = try await delegate.run(session.dataTask(with: prepared))
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            view = try? JSONDecoder().decode(ServerView.self, from: data)
        case .stream:
            let session = URLSession(configuration: .default)
            var streamed = request(server)
            streamed.httpBodyStream = InputStream(url: body)
            let prepared = streamed
            start = clock.now
            (status, view) = try await upload(session: session) { session, done in
                session.dataTask(with: prepared, completionHandler: done)
            }
        }
        let seconds = Measurement.seconds(start.duration(to: clock.now))
        let result = Result(
            seconds: seconds, cpuSeconds: processCPUSeconds(), peakKiB: (peakResidentMiB() ?? 0) * 1024, status: status,
            view: view)
        let line = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        print(resultPrefix + line)
    }

    /// The POST the baselines send: the same headers NetKit sends for the form.
    static func request(_ server: URL) -> URLRequest {
        var request = URLRequest(url: server.appendingPathComponent("upload"))
        request.httpMethod = "POST"
        request.setValue(
            "multipart/form-data; boundary=\(UploadBenchmarks.boundary)", forHTTPHeaderField: "Content-Type")
        return request
    }

    /// Runs the task `make` creates and waits for its completion handler.
    static func upload(
        session: URLSession,
        _ make: (URLSession, @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionTask
    ) async throws -> (Int, ServerView?) {
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            let task = make(session) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let data, let response else {
                    return continuation.resume(throwing: Failure(description: "no response"))
                }
                continuation.resume(returning: (data, response))
            }
            task.resume()
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, try? JSONDecoder().decode(ServerView.self, from: data))
    }
}

/// What the benchmark server saw of a request, sent back as JSON: the same shape in counted mode (length and
/// framing only) and in digest mode (also the SHA-256 of the body and the parts).
struct ServerView: Codable, Sendable {
    let bodyByteCount: Int
    let contentLength: Int?
    let wasChunked: Bool
    let sha256: String?
    let parts: [LoopbackMultipartPartDigest]?

    init(_ request: LoopbackRequest) {
        bodyByteCount = request.bodyByteCount
        contentLength = request.contentLength
        wasChunked = request.wasChunked
        sha256 = request.bodyDigest?.sha256
        parts = request.bodyDigest?.parts
    }

    var json: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// A session delegate that gathers one task's response, as a streaming client must: with a delegate,
/// URLSession reports every 64 KiB sent (`didSendBodyData`) through its delegate queue.
///
/// `@unchecked Sendable`: `NSObject` is not `Sendable`; the state is only touched under `state`'s lock.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var data = Data()
        var response: URLResponse?
        var waiter: CheckedContinuation<(Data, URLResponse), any Error>?
    }
    private let state = Lock(State())

    /// Starts `task` and waits for its end.
    func run(_ task: URLSessionTask) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.waiter = continuation }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {}

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (waiter, result):
            (CheckedContinuation<(Data, URLResponse), any Error>?, Result<(Data, URLResponse), any Error>) =
                state.withLock { state in
                    defer { state.waiter = nil }
                    if let error { return (state.waiter, .failure(error)) }
                    guard let response = state.response else {
                        return (state.waiter, .failure(UploadChild.Failure(description: "no response")))
                    }
                    return (state.waiter, .success((state.data, response)))
                }
        waiter?.resume(with: result)
    }
}

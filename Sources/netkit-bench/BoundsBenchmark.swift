import Foundation
import LoopbackServer
import NetKit
import NetKitLock

// The bounds cases: what a hostile server costs a client, each road in a fresh child process whose peak resident
// memory (VmHWM), CPU time (getrusage) and peak spill on disk are its own; the server runs in this process.
//
//   netkit-bench bounds [rounds]          every case below (rounds default 1; medians when more)
//   netkit-bench tiny-chunks [rounds]     10 million 1-byte chunks (NETKIT_BENCH_TINY_CHUNKS), read by `send`,
//                                         by `stream()`, and by a paused `stream()`
//   netkit-bench paused-body [rounds]     a 1 GiB body (NETKIT_BENCH_PAUSED_MIB) whose consumer stops reading
//   netkit-bench gzip-bomb [rounds]       0.97 MB of gzip that inflates to 1 GB (NETKIT_BENCH_GZIP_MB), by `send`,
//                                         `stream()` and a paused `stream()`
//   netkit-bench sse-retry0 [rounds]      an event source whose server said `retry: 0` and then fails every
//                                         connection, iterated for 5 s (NETKIT_BENCH_SSE_SECONDS)
//
// NETKIT_BENCH_BOUNDS_TRANSPORTS=a,b picks the transports (urlsession by default) and NETKIT_BENCH_BOUNDS_CHILD the
// program each child runs (this one by default), so a build with more transports can run the same cases.

/// Runs a bounds case if `selected` names one (or, in a child, its one road). Returns `true` when it did.
func runBoundsBenchmarks(selected: String, arguments: [String], rounds: Int) async throws -> Bool {
    if selected == BoundsChild.command {
        try await BoundsChild.run(Array(arguments.dropFirst()))
        return true
    }
    guard let groups = BoundsBenchmark.groups(selected) else { return false }
    do {
        try await BoundsBenchmark(rounds: max(1, arguments.count > 1 ? rounds : 1)).run(groups)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
    return true
}

/// The parent side of the bounds cases: the servers, the children, the table.
struct BoundsBenchmark {
    let rounds: Int
    /// The transports measured: `NETKIT_BENCH_BOUNDS_TRANSPORTS` (comma-separated), `urlsession` by default, the one
    /// transport of a build without traits.
    let transports =
        BoundsBenchmark.environment["NETKIT_BENCH_BOUNDS_TRANSPORTS"].map { $0.split(separator: ",").map(String.init) }
        ?? ["urlsession"]
    /// The program that runs each child: `NETKIT_BENCH_BOUNDS_CHILD`, this one by default. Another program that
    /// answers `__bounds-child <road> <transport> <URL> [seconds]` with the same result line measures the transports
    /// it has (one built with the AsyncHTTPClient trait, say) against these servers and cases.
    let childProgram =
        BoundsBenchmark.environment["NETKIT_BENCH_BOUNDS_CHILD"].map { URL(fileURLWithPath: $0) }
        ?? Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])

    static let environment = ProcessInfo.processInfo.environment
    static let tinyChunkCount = environment["NETKIT_BENCH_TINY_CHUNKS"].flatMap(Int.init) ?? 10_000_000
    static let pausedBodyBytes = (environment["NETKIT_BENCH_PAUSED_MIB"].flatMap(Int.init) ?? 1024) << 20
    static let gzipDecodedBytes = (environment["NETKIT_BENCH_GZIP_MB"].flatMap(Int.init) ?? 1000) * 1_000_000
    static let sseSeconds = environment["NETKIT_BENCH_SSE_SECONDS"].flatMap(Double.init) ?? 5

    enum Group: String, CaseIterable {
        case tinyChunks = "tiny-chunks"
        case pausedBody = "paused-body"
        case gzipBomb = "gzip-bomb"
        case sseRetryZero = "sse-retry0"
    }

    static func groups(_ selected: String) -> [Group]? {
        selected == "bounds" ? Group.allCases : Group(rawValue: selected).map { [$0] }
    }

    /// One child's road, against one server.
    struct Case {
        let name: String
        let road: BoundsChild.Road
        let url: URL
        var extra: [String] = []
    }

    func run(_ groups: [Group]) async throws {
        let reference = try LoopbackServer { TransferRoutes.handle($0) }
        defer { reference.stop() }
        print("## bounds: each road in a fresh child process, \(rounds) round(s), medians")
        print(
            "CPU is the child's user + system time (getrusage), peak RSS its VmHWM, spill the disk held by its deleted open files (sampled every 20 ms); \"above idle\" is against a child that made one small request."
        )
        print("")
        print(
            "| case | transport | outcome | delivered | chunks / connections | time | CPU (above idle) | peak RSS (above idle) | peak spill |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for transport in transports {
            let idle = try runCase(
                Case(name: "idle: one small request", road: .idle, url: reference.baseURL), transport: transport)
            for group in groups {
                try await runGroup(group, transport: transport, idle: idle)
            }
        }
        print("")
    }

    func runGroup(_ group: Group, transport: String, idle: BoundsChild.Result) async throws {
        switch group {
        case .tinyChunks:
            let server = try LoopbackRawServer(response: Self.tinyChunksResponse(count: Self.tinyChunkCount))
            defer { server.stop() }
            let url = server.baseURL.appending(path: "chunks")
            let count = Self.tinyChunkCount.formatted()
            for (road, title) in [
                (BoundsChild.Road.send, "`send`"), (.stream, "`stream()`"), (.paused, "paused `stream()`"),
            ] {
                _ = try runCase(
                    Case(name: "(a) \(count) 1-byte chunks, \(title)", road: road, url: url), transport: transport,
                    idle: idle)
            }
        case .pausedBody:
            let bytes = Self.pausedBodyBytes
            let server = try LoopbackServer { _ in .patterned(byteCount: bytes) }
            defer { server.stop() }
            _ = try runCase(
                Case(
                    name: "(b) \(bytes >> 20) MiB body, paused `stream()`", road: .paused,
                    url: server.baseURL.appending(path: "bulk")),
                transport: transport, idle: idle)
        case .gzipBomb:
            let bomb = GzipBomb.make(decodedBytes: Self.gzipDecodedBytes)
            let server = try LoopbackRawServer(response: Self.gzipResponse(bomb.gzip))
            defer { server.stop() }
            let url = server.baseURL.appending(path: "bomb")
            let title =
                "\(format(Double(bomb.gzip.count) / 1e6, 2)) MB gzip → \(format(Double(bomb.decodedCount) / 1e9, 2)) GB"
            for (road, how) in [
                (BoundsChild.Road.send, "`send`"), (.stream, "`stream()`"), (.paused, "paused `stream()`"),
            ] {
                _ = try runCase(
                    Case(name: "(c) \(title), \(how)", road: road, url: url), transport: transport, idle: idle)
            }
        case .sseRetryZero:
            let server = try Self.retryZeroServer()
            defer { server.stop() }
            let seconds = Self.sseSeconds
            let result = try runCase(
                Case(
                    name: "(d) event source, `retry: 0` then every connection fails, \(format(seconds, 0)) s",
                    road: .sse, url: server.baseURL.appending(path: "events"), extra: [String(seconds)]),
                transport: transport, idle: idle)
            let cpuAboveIdle = result.cpuSeconds - idle.cpuSeconds
            print(
                "|   ↳ reconnects per second | | \(format(Double(result.connections) / seconds, 1)) /s | | server saw \(server.requestCount) requests | | \(format(cpuAboveIdle / seconds, 3)) CPU-s per second of the run | | |"
            )
        }
    }

    /// Runs `benchmarkCase` `rounds` times, prints its row (medians) and returns the median result.
    @discardableResult
    func runCase(_ benchmarkCase: Case, transport: String, idle: BoundsChild.Result? = nil) throws
        -> BoundsChild.Result
    {
        var results: [BoundsChild.Result] = []
        for _ in 0..<rounds {
            results.append(try runChild(benchmarkCase, transport: transport))
        }
        func middle<T: Comparable>(_ value: (BoundsChild.Result) -> T) -> T {
            results.map(value).sorted()[results.count / 2]
        }
        var result = results[0]
        result.seconds = middle(\.seconds)
        result.cpuSeconds = middle(\.cpuSeconds)
        result.peakKiB = middle(\.peakKiB)
        result.peakSpillBytes = middle(\.peakSpillBytes)
        result.bytes = middle(\.bytes)
        result.chunks = middle(\.chunks)
        result.connections = middle(\.connections)
        let outcomes = Set(results.map(\.outcome)).sorted().joined(separator: "; ")
        let counted = benchmarkCase.road == .sse ? "\(result.connections.formatted())" : result.chunks.formatted()
        let delivered =
            benchmarkCase.road == .sse ? "\(result.bytes) events" : "\(format(Double(result.bytes) / 1e6, 1)) MB"
        let cpuAbove = idle.map { " (\(format(result.cpuSeconds - $0.cpuSeconds, 2)) s)" } ?? ""
        let peakAbove = idle.map { " (\(format((result.peakKiB - $0.peakKiB) / 1024, 1)) MiB)" } ?? ""
        let paused = result.pausedSeconds > 0 ? " (paused \(format(result.pausedSeconds, 1)) s)" : ""
        print(
            "| \(benchmarkCase.name) | \(transport) | \(outcomes) | \(delivered) | \(counted) | \(format(result.seconds, 2)) s\(paused) | \(format(result.cpuSeconds, 2)) s\(cpuAbove) | \(format(result.peakKiB / 1024, 1)) MiB\(peakAbove) | \(format(Double(result.peakSpillBytes) / 1_048_576, 1)) MiB |"
        )
        fflush(nil)
        return result
    }

    /// Starts `netkit-bench __bounds-child …` and reads its one result line.
    func runChild(_ benchmarkCase: Case, transport: String) throws -> BoundsChild.Result {
        let process = Process()
        process.executableURL = childProgram
        process.arguments =
            [BoundsChild.command, benchmarkCase.road.rawValue, transport, benchmarkCase.url.absoluteString]
            + benchmarkCase.extra
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix(BoundsChild.resultPrefix) })
        else {
            throw UploadChild.Failure(
                description:
                    "bounds: the child for \(benchmarkCase.name) exited with \(process.terminationStatus) (signal or crash when above 128): \(text.suffix(2000))"
            )
        }
        return try JSONDecoder().decode(
            BoundsChild.Result.self, from: Data(line.dropFirst(BoundsChild.resultPrefix.count).utf8))
    }

    /// A chunked response of `count` chunks of one byte each (`1\r\na\r\n`), then `Connection: close`.
    static func tinyChunksResponse(count: Int) -> [UInt8] {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        let chunk: [UInt8] = Array("1\r\na\r\n".utf8)
        var response = Array(head.utf8)
        response.reserveCapacity(response.count + count * chunk.count + 5)
        for _ in 0..<count { response.append(contentsOf: chunk) }
        response.append(contentsOf: Array("0\r\n\r\n".utf8))
        return response
    }

    /// `gzip` as a `Content-Encoding: gzip` body with its `Content-Length`, then `Connection: close`.
    static func gzipResponse(_ gzip: Data) -> [UInt8] {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Encoding: gzip\r\nContent-Length: \(gzip.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + [UInt8](gzip)
    }

    /// The first connection gets `retry: 0` and one event, then is cut; every later one is cut before any event.
    static func retryZeroServer() throws -> LoopbackServer {
        let connections = Lock(0)
        let eventStream = [(name: "Content-Type", value: "text/event-stream")]
        return try LoopbackServer(limits: LoopbackLimits(maxRecordedRequests: 0)) { _ in
            let first = connections.withLock {
                $0 += 1
                return $0 == 1
            }
            return .streamed(headers: eventStream) { writer in
                if first { _ = writer.write("retry: 0\ndata: hello\n\n") }
                writer.abort()
            }
        }
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKit

/// A GET of one of ``TransferRoutes``' bodies, for `stream()`.
struct TransferRequest: NetworkRequest, Sendable {
    typealias Response = EmptyResponse
    let path: String
    var method: HTTPMethod { .get }
}

/// What one streamed read saw: the bytes (of chunks) or the bytes and count of lines.
struct StreamTally: Equatable {
    var bytes = 0
    var lines = 0
}

nonisolated func streamChunks(_ manager: NetworkManager, path: String) async throws -> StreamTally {
    let response = try await manager.stream(TransferRequest(path: path))
    var tally = StreamTally()
    for try await chunk in response.chunks { tally.bytes += chunk.count }
    return tally
}

nonisolated func streamLines(_ manager: NetworkManager, path: String) async throws -> StreamTally {
    let response = try await manager.stream(TransferRequest(path: path))
    var tally = StreamTally()
    for try await line in response.lines() {
        tally.lines += 1
        tally.bytes += line.utf8.count + 1
    }
    return tally
}

/// `stream`: a 100 MB body over loopback through `NetworkManager.stream()` (its `chunks`, and `lines()` of a
/// line-structured body) against a raw session-level data delegate that counts bytes (and line ends), with the
/// same session configuration and server, and a plain TCP read of the same body to show the server's ceiling.
nonisolated func streamCase(rounds: Int, serverKind: String) async throws {
    let size = 100_000_000
    let lines = TransferRoutes.linesBody(approximately: size)
    let bulkPath = "/bulk/\(size)"
    let linesPath = "/lines/\(size)"
    let server = try BenchmarkServer.make(serverKind, bulk: [size], lines: [size])
    defer { server.stop() }
    let configuration = URLSessionConfiguration.default
    let delegate = RawCountingDelegate()
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    #if canImport(FoundationNetworking)
    let inlineQueue: OperationQueue? = InlineCallbackQueue()
    #else
    let inlineQueue: OperationQueue? = nil
    #endif
    let inlineDelegate = RawCountingDelegate()
    let inlineSession = URLSession(configuration: configuration, delegate: inlineDelegate, delegateQueue: inlineQueue)
    defer { inlineSession.finishTasksAndInvalidate() }
    // Timed with a buffer larger than the body: URLSession on Linux cannot slow the server down, so a consumer
    // that is slower than loopback (lines() is) falls behind; the default limit's outcomes are counted below.
    let timedLimit = 256 << 20
    let manager = NetworkManager(
        baseURL: server.baseURL, transport: URLSessionTransport(configuration: configuration, bufferLimit: timedLimit))
    let defaultManager = NetworkManager(
        baseURL: server.baseURL, transport: URLSessionTransport(configuration: configuration))
    let bulkURL = server.baseURL.appending(path: bulkPath)
    let linesURL = server.baseURL.appending(path: linesPath)

    var tcp = Measurement(name: "plain TCP read (recv into 256 KiB, no HTTP client)")
    var raw = Measurement(name: "raw session-level URLSessionDataDelegate, counting bytes")
    var chunks = Measurement(name: "NetKit `stream()`, iterating `chunks`")
    var rawInline = Measurement(
        name: "raw session-level URLSessionDataDelegate, counting bytes, callbacks inline (as NetKit's)")
    var rawLinesBytes = Measurement(name: "raw session-level URLSessionDataDelegate, counting bytes (lines body)")
    var rawLines = Measurement(name: "raw session-level URLSessionDataDelegate, counting bytes and line ends (memchr)")
    var netkitLines = Measurement(name: "NetKit `stream()`, iterating `lines()`")
    func check(_ condition: Bool, _ what: String) {
        if !condition { fatalError("stream: \(what) did not read the whole body") }
    }
    for round in 0...rounds {
        // Round 0 warms up (connections, buffers, the thread pool) and is not recorded.
        func record(_ measurement: inout Measurement, _ duration: Duration) {
            if round > 0 { measurement.samples.append(duration) }
        }
        var count = 0
        record(
            &tcp, try await clock.measure { count = try await PlainTCPReader.fetch(port: server.port, path: bulkPath) })
        check(count == size, "the plain TCP read")
        var rawTally = (bytes: 0, lineEnds: 0)
        record(&raw, try await clock.measure { rawTally = try await delegate.fetch(bulkURL, in: session) })
        check(rawTally.bytes == size, "the raw delegate")
        record(
            &rawInline,
            try await clock.measure { rawTally = try await inlineDelegate.fetch(bulkURL, in: inlineSession) })
        check(rawTally.bytes == size, "the inline raw delegate")
        var tally = StreamTally()
        record(&chunks, try await clock.measure { tally = try await streamChunks(manager, path: bulkPath) })
        check(tally.bytes == size, "chunks")
        record(&rawLinesBytes, try await clock.measure { rawTally = try await delegate.fetch(linesURL, in: session) })
        check(rawTally.bytes == lines.bytes, "the raw delegate (lines body)")
        record(
            &rawLines,
            try await clock.measure { rawTally = try await delegate.fetch(linesURL, in: session, countingLines: true) })
        check(rawTally.bytes == lines.bytes && rawTally.lineEnds == lines.lines, "the raw line counter")
        record(&netkitLines, try await clock.measure { tally = try await streamLines(manager, path: linesPath) })
        check(tally == StreamTally(bytes: lines.bytes, lines: lines.lines), "lines()")
    }

    // The same reads with the default limit (16 MiB): how often the consumer falls that far behind.
    var outcomes: [String: [String: Int]] = ["chunks": [:], "lines()": [:]]
    for _ in 0..<max(3, rounds / 2) {
        for (name, read) in [
            ("chunks", { try await streamChunks(defaultManager, path: bulkPath) }),
            ("lines()", { try await streamLines(defaultManager, path: linesPath) }),
        ] as [(String, () async throws -> StreamTally)] {
            let outcome: String
            do {
                _ = try await read()
                outcome = "completed"
            } catch StreamingError.bufferLimitExceeded {
                outcome = "bufferLimitExceeded"
            }
            outcomes[name, default: [:]][outcome, default: 0] += 1
        }
    }

    print("## stream: \(format(Double(size) / 1e6, 0)) MB over loopback (\(server.name)), \(rounds) rounds, medians")
    print("| case | median | MB/s (median) | best | MB/s (best) |")
    print("| --- | --- | --- | --- | --- |")
    for (measurement, bytes) in [
        (tcp, size), (raw, size), (rawInline, size), (chunks, size), (rawLinesBytes, lines.bytes),
        (rawLines, lines.bytes), (netkitLines, lines.bytes),
    ] {
        let median = Measurement.seconds(measurement.median)
        let best = Measurement.seconds(measurement.samples.min()!)
        print(
            "| \(measurement.name) | \(format(median * 1000, 1)) ms | \(format(Double(bytes) / 1e6 / median, 0)) | \(format(best * 1000, 1)) ms | \(format(Double(bytes) / 1e6 / best, 0)) |"
        )
    }
    // Throughput ratios: the lines body is a few bytes shorter than the bulk one.
    print("chunks / raw delegate: \(throughputRatio(chunks, size, raw, size)) (target ≥ 0.90)")
    print("chunks / raw delegate with inline callbacks: \(throughputRatio(chunks, size, rawInline, size))")
    print(
        "lines() / raw delegate (bytes, lines body): \(throughputRatio(netkitLines, lines.bytes, rawLinesBytes, lines.bytes)) (target ≥ 0.90)"
    )
    print(
        "lines() / raw delegate (bytes and line ends): \(throughputRatio(netkitLines, lines.bytes, rawLines, lines.bytes))"
    )
    print(
        "NetKit timed with bufferLimit \(timedLimit >> 20) MiB; with the default \(URLSessionTransport.defaultBufferLimit >> 20) MiB: "
            + outcomes.keys.sorted().map { name in
                "\(name) "
                    + outcomes[name]!.keys.sorted().map { "\($0) \(outcomes[name]![$0]!)×" }.joined(separator: ", ")
            }.joined(separator: "; "))
    print("raw delegate / plain TCP read: \(throughputRatio(raw, size, tcp, size)) (the server's headroom)")
    print("")
}

/// The ratio of two throughputs from their medians, the median of the rounds' own ratios (each round runs both
/// cases back to back, so a neighbour's load hits both), and the ratio of best times.
func throughputRatio(
    _ numerator: Measurement, _ numeratorBytes: Int, _ denominator: Measurement, _ denominatorBytes: Int
) -> String {
    func rate(_ duration: Duration, _ bytes: Int) -> Double { Double(bytes) / Measurement.seconds(duration) }
    let median = rate(numerator.median, numeratorBytes) / rate(denominator.median, denominatorBytes)
    let paired = zip(numerator.samples, denominator.samples).map {
        rate($0, numeratorBytes) / rate($1, denominatorBytes)
    }.sorted()
    let best = rate(numerator.samples.min()!, numeratorBytes) / rate(denominator.samples.min()!, denominatorBytes)
    return
        "\(format(median))× (median of per-round ratios: \(format(paired[paired.count / 2]))×, best times: \(format(best))×)"
}

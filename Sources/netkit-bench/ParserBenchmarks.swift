import Foundation
import NetKit

/// One NDJSON record of the benchmark input.
struct BenchmarkRecord: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
    let score: Double
    let active: Bool
}

/// The benchmark inputs: about `megabytes` MB of NDJSON and of server-sent events, cut into 64 KiB chunks.
struct ParserInputs: Sendable {
    static let chunkSize = 64 * 1024
    let ndjson: [Data]
    let events: [Data]
    let ndjsonBytes: Int
    let eventBytes: Int
    let eventCount: Int

    init(megabytes: Int) {
        let target = megabytes * 1_000_000
        var ndjson = Data()
        ndjson.reserveCapacity(target + 200)
        var index = 0
        while ndjson.count < target {
            ndjson.append(contentsOf: Self.record(index).utf8)
            ndjson.append(0x0A)
            index += 1
        }
        var events = Data()
        events.reserveCapacity(target + 300)
        var eventCount = 0
        while events.count < target {
            events.append(contentsOf: "id: \(eventCount)\nevent: update\ndata: \(Self.record(eventCount))\n\n".utf8)
            eventCount += 1
        }
        self.ndjson = Self.chunks(of: ndjson)
        self.events = Self.chunks(of: events)
        self.ndjsonBytes = ndjson.count
        self.eventBytes = events.count
        self.eventCount = eventCount
    }

    static func record(_ index: Int) -> String {
        "{\"id\":\(index),\"name\":\"user-\(index)\",\"email\":\"user\(index)@example.com\",\"score\":\(index % 1000).5,\"active\":\(index % 2 == 0)}"
    }

    /// Independent 64 KiB chunks (copies, not slices), as a transport hands them over.
    static func chunks(of data: Data) -> [Data] {
        stride(from: 0, to: data.count, by: chunkSize).map { start in
            Data(data[start..<min(start + chunkSize, data.count)])
        }
    }

    /// About the first `bytes` bytes of `chunks`, ending with the last complete line, for the slow cases.
    static func prefix(_ chunks: [Data], bytes: Int) -> [Data] {
        var prefix = Array(chunks.prefix(max(1, bytes / chunkSize)))
        if let last = prefix.popLast(), let newline = last.lastIndex(of: 0x0A) {
            prefix.append(Data(last[...newline]))
        }
        return prefix
    }
}

/// A body as the transport delivers it: an `AsyncThrowingStream` of the chunks, filled before timing starts.
func bodyOf(_ chunks: [Data]) -> ResponseBody {
    ResponseBody(
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        })
}

nonisolated func countLines(_ body: ResponseBody) async throws -> LineTally {
    var tally = LineTally()
    for try await line in LineSequence(body) {
        tally.lines += 1
        tally.bytes += line.utf8.count
    }
    return tally
}

@MainActor
func countLinesOnMainActor(_ body: ResponseBody) async throws -> LineTally {
    var tally = LineTally()
    for try await line in LineSequence(body) {
        tally.lines += 1
        tally.bytes += line.utf8.count
    }
    return tally
}

nonisolated func sumRecords(_ body: ResponseBody, decoder: JSONDecoder) async throws -> Int {
    var sum = 0
    for try await record in NDJSONSequence(body, of: BenchmarkRecord.self, decoder: decoder) { sum &+= record.id }
    return sum
}

nonisolated func countEvents(_ body: ResponseBody) async throws -> Int {
    var count = 0
    for try await event in ServerSentEventSequence(body) { count += event.data.utf8.count > 0 ? 1 : 0 }
    return count
}

nonisolated func countBytes(_ body: ResponseBody) async throws -> Int {
    var count = 0
    for try await byte in ByteSequence(body) { count &+= Int(byte & 1) + 1 }
    return count
}

/// `lines()`, NDJSON, SSE and the bytes view over the same in-memory chunks, each against its baselines.
nonisolated func parsersCase(rounds: Int) async throws {
    let megabytes = 50
    let inputs = ParserInputs(megabytes: megabytes)
    // The slow cases read a prefix of the same chunks; their throughput is compared, not their times.
    let perByteInput = ParserInputs.prefix(inputs.ndjson, bytes: 1_000_000)
    let perByteBytes = perByteInput.reduce(0) { $0 + $1.count }
    let ndjsonInput = ParserInputs.prefix(inputs.ndjson, bytes: 5_000_000)
    let ndjsonBytes = ndjsonInput.reduce(0) { $0 + $1.count }
    let bytesInput = ParserInputs.prefix(inputs.ndjson, bytes: 10_000_000)
    let bytesBytes = bytesInput.reduce(0) { $0 + $1.count }
    let decoder = JSONDecoder()

    var lines = Measurement(name: "`lines()` (LineSequence over ResponseBody)")
    var linesMain = Measurement(name: "`lines()`, consumer on @MainActor")
    var synchronous = Measurement(name: "(b) synchronous chunked splitter, one String per line")
    var perByte = Measurement(
        name:
            "(a) EKNetwork design: AsyncThrowingStream<UInt8> + lines task (\(format(Double(perByteBytes) / 1e6, 1)) MB)"
    )
    var ndjson = Measurement(
        name: "`ndjson(as:)` (NDJSONSequence over ResponseBody, \(format(Double(ndjsonBytes) / 1e6, 1)) MB)")
    var bareNDJSON = Measurement(
        name: "bare loop: synchronous split + JSONDecoder per line (\(format(Double(ndjsonBytes) / 1e6, 1)) MB)")
    var events = Measurement(name: "`events()` (ServerSentEventSequence over ResponseBody)")
    var bytes = Measurement(name: "`bytes` (ByteSequence over ResponseBody, \(format(Double(bytesBytes) / 1e6, 1)) MB)")

    let expected = synchronousLines(inputs.ndjson)
    let expectedPerByte = synchronousLines(perByteInput)
    var expectedSum = 0
    try synchronousNDJSON(ndjsonInput, as: BenchmarkRecord.self, decoder: decoder) { expectedSum &+= $0.id }
    func check(_ condition: Bool, _ what: String) {
        if !condition { fatalError("parsers: \(what) disagrees with its baseline") }
    }

    for round in 0...rounds {
        // Round 0 warms up and is not recorded.
        func record(_ measurement: inout Measurement, _ duration: Duration) {
            if round > 0 { measurement.samples.append(duration) }
        }
        var tally = LineTally()
        var body = bodyOf(inputs.ndjson)
        record(&lines, try await clock.measure { tally = try await countLines(body) })
        check(tally == expected, "lines()")

        record(&synchronous, clock.measure { tally = synchronousLines(inputs.ndjson) })
        check(tally == expected, "synchronous splitter")

        body = bodyOf(inputs.ndjson)
        record(&linesMain, try await clock.measure { tally = try await countLinesOnMainActor(body) })
        check(tally == expected, "lines() on the main actor")

        var count = 0
        body = bodyOf(inputs.events)
        record(&events, try await clock.measure { count = try await countEvents(body) })
        check(count == inputs.eventCount, "events()")

        body = bodyOf(bytesInput)
        record(&bytes, try await clock.measure { count = try await countBytes(body) })
        check(count > bytesBytes, "bytes")
    }

    // The slow cases run in loops of their own, after the fast ones: the per-byte stream (three tasks, a
    // million continuations) and JSONDecoder churn the allocator and the thread pool, which slowed whatever
    // case ran next by up to 1.7×.
    for round in 0...rounds {
        var sum = 0
        let body = bodyOf(ndjsonInput)
        let duration = try await clock.measure { sum = try await sumRecords(body, decoder: decoder) }
        check(sum == expectedSum, "ndjson")
        sum = 0
        let bareDuration = try clock.measure {
            try synchronousNDJSON(ndjsonInput, as: BenchmarkRecord.self, decoder: decoder) { sum &+= $0.id }
        }
        check(sum == expectedSum, "bare NDJSON loop")
        if round > 0 {
            ndjson.samples.append(duration)
            bareNDJSON.samples.append(bareDuration)
        }
    }
    for round in 0...max(3, rounds / 2) {
        var tally = LineTally()
        let duration = try await clock.measure { tally = try await perByteStreamLines(perByteInput) }
        check(tally == expectedPerByte, "per-byte stream")
        if round > 0 { perByte.samples.append(duration) }
    }

    func megabytesPerSecond(_ measurement: Measurement, bytes: Int) -> Double {
        Double(bytes) / 1e6 / Measurement.seconds(measurement.median)
    }
    let mb = Double(inputs.ndjsonBytes) / 1e6
    print(
        "## parsers: \(format(mb, 1)) MB of NDJSON (\(expected.lines) lines) and \(format(Double(inputs.eventBytes) / 1e6, 1)) MB of SSE (\(inputs.eventCount) events) in 64 KiB chunks in memory, \(rounds) rounds, medians"
    )
    print("| case | median | MB/s (median) | best | MB/s (best) |")
    print("| --- | --- | --- | --- | --- |")
    let rows: [(Measurement, Int)] = [
        (lines, inputs.ndjsonBytes), (synchronous, inputs.ndjsonBytes), (perByte, perByteBytes),
        (linesMain, inputs.ndjsonBytes),
        (ndjson, ndjsonBytes), (bareNDJSON, ndjsonBytes), (events, inputs.eventBytes), (bytes, bytesBytes),
    ]
    for (measurement, size) in rows {
        let seconds = Measurement.seconds(measurement.median)
        let best = Measurement.seconds(measurement.samples.min()!)
        print(
            "| \(measurement.name) | \(format(seconds * 1000, 1)) ms | \(format(megabytesPerSecond(measurement, bytes: size), 1)) | \(format(best * 1000, 1)) ms | \(format(Double(size) / 1e6 / best, 1)) |"
        )
    }
    // Ratios of medians, and of best times: on a shared machine a neighbour's load can slow a whole round.
    func ratio(
        _ numerator: Measurement, _ numeratorBytes: Int, _ denominator: Measurement, _ denominatorBytes: Int,
        _ digits: Int = 2
    ) -> String {
        func rate(_ duration: Duration, _ bytes: Int) -> Double { Double(bytes) / Measurement.seconds(duration) }
        let median = rate(numerator.median, numeratorBytes) / rate(denominator.median, denominatorBytes)
        let best = rate(numerator.samples.min()!, numeratorBytes) / rate(denominator.samples.min()!, denominatorBytes)
        return "\(format(median, digits))× (best times: \(format(best, digits))×)"
    }
    let size = inputs.ndjsonBytes
    print("lines() / (b) synchronous: \(ratio(lines, size, synchronous, size)) (target ≥ 0.70)")
    print(
        "lines() / (a) per-byte stream, throughput scaled from \(format(Double(perByteBytes) / 1e6, 1)) MB: \(ratio(lines, size, perByte, perByteBytes, 0)) (target ≥ 300)"
    )
    print("ndjson / bare loop: \(ratio(ndjson, ndjsonBytes, bareNDJSON, ndjsonBytes)) (target ≥ 0.80)")
    print(
        "events(): \(format(megabytesPerSecond(events, bytes: inputs.eventBytes), 0)) MB/s (best time: \(format(Double(inputs.eventBytes) / 1e6 / Measurement.seconds(events.samples.min()!), 0)) MB/s) (target ≥ 300)"
    )
    print("@MainActor / off-main lines(): \(ratio(linesMain, size, lines, size)) (target ≥ 0.50)")
    print("")
}

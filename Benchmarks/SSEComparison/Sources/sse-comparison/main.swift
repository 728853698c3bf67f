// Decodes the same text/event-stream bytes, cut into the same 64 KiB chunks, with NetKit's `events()` and with
// swift-openapi-runtime's `asDecodedServerSentEvents()`, alternating round by round, and prints MB/s for each.
import Foundation
import NetCore
import NetStreaming
import OpenAPIRuntime

let arguments = CommandLine.arguments.dropFirst()
let megabytes = arguments.first.flatMap(Int.init) ?? 50
let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 5
let chunkSize = 64 * 1024

/// About `megabytes` MB of events as a typical JSON API streams them: an id, a type and one JSON data line.
func eventStream(megabytes: Int) -> (bytes: [UInt8], events: Int) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(megabytes * 1_000_000 + 300)
    var index = 0
    while bytes.count < megabytes * 1_000_000 {
        let record =
            "{\"id\":\(index),\"name\":\"user-\(index)\",\"email\":\"user\(index)@example.com\",\"score\":\(index % 1000).5,\"active\":\(index % 2 == 0)}"
        bytes.append(contentsOf: "id: \(index)\nevent: update\ndata: \(record)\n\n".utf8)
        index += 1
    }
    return (bytes, index)
}

/// What a decoder saw; both must agree.
struct Tally: Equatable {
    var events = 0
    var dataBytes = 0
    var lastID = ""
}

nonisolated func decodeWithNetKit(_ chunks: [Data]) async throws -> Tally {
    let body = ResponseBody(
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        })
    var tally = Tally()
    for try await event in ServerSentEventSequence(body) {
        tally.events += 1
        tally.dataBytes += event.data.utf8.count
        tally.lastID = event.id ?? ""
    }
    return tally
}

nonisolated func decodeWithOpenAPIRuntime(_ chunks: [ArraySlice<UInt8>]) async throws -> Tally {
    let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
    let body = HTTPBody(stream, length: .unknown, iterationBehavior: .single)
    var tally = Tally()
    for try await event in body.asDecodedServerSentEvents() {
        tally.events += 1
        tally.dataBytes += event.data?.utf8.count ?? 0
        tally.lastID = event.id ?? ""
    }
    return tally
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ samples: [Duration]) -> Duration {
    samples.sorted()[samples.count / 2]
}

let (bytes, eventCount) = eventStream(megabytes: megabytes)
let dataChunks = stride(from: 0, to: bytes.count, by: chunkSize).map {
    Data(bytes[$0..<min($0 + chunkSize, bytes.count)])
}
let sliceChunks = stride(from: 0, to: bytes.count, by: chunkSize).map {
    ArraySlice(bytes[$0..<min($0 + chunkSize, bytes.count)])
}
let clock = ContinuousClock()
var netKit: [Duration] = []
var openAPI: [Duration] = []
for round in 0...rounds {
    // Round 0 warms up and is not recorded.
    var netKitTally = Tally()
    var openAPITally = Tally()
    let netKitTime = try await clock.measure { netKitTally = try await decodeWithNetKit(dataChunks) }
    let openAPITime = try await clock.measure { openAPITally = try await decodeWithOpenAPIRuntime(sliceChunks) }
    guard netKitTally == openAPITally, netKitTally.events == eventCount else {
        fatalError(
            "the decoders disagree: NetKit \(netKitTally), swift-openapi-runtime \(openAPITally), expected \(eventCount) events"
        )
    }
    if round > 0 {
        netKit.append(netKitTime)
        openAPI.append(openAPITime)
    }
}

let size = Double(bytes.count) / 1e6
print(
    "## SSE decoding: \(String(format: "%.1f", size)) MB (\(eventCount) events) in 64 KiB chunks in memory, \(rounds) rounds, medians"
)
print("| decoder | median | MB/s | best | MB/s (best) |")
print("| --- | --- | --- | --- | --- |")
for (name, samples) in [
    ("NetKit `events()` (ServerSentEventSequence)", netKit),
    ("swift-openapi-runtime 1.13 `asDecodedServerSentEvents()`", openAPI),
] {
    let middle = seconds(median(samples))
    let best = seconds(samples.min()!)
    print(
        "| \(name) | \(String(format: "%.1f", middle * 1000)) ms | \(String(format: "%.1f", size / middle)) | \(String(format: "%.1f", best * 1000)) ms | \(String(format: "%.1f", size / best)) |"
    )
}
print(
    "NetKit / swift-openapi-runtime: \(String(format: "%.1f", seconds(median(openAPI)) / seconds(median(netKit))))× the throughput"
)

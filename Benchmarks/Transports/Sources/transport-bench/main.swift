// transport-bench: raw URLSession, NetKit over URLSession, raw AsyncHTTPClient and NetKit over AsyncHTTPClient,
// in one process, against one HTTP server on loopback (run-benchmarks.sh starts nginx).
//
//   transport-bench <base-url> [small|concurrent|download|all] [rounds]
//   transport-bench <base-url> memory <urlsession|netkit-urlsession|ahc|netkit-ahc> [requests]
//   transport-bench <base-url> profile <client> <requests> <in-flight>    (one client alone, for a profiler)
//       clients: urlsession, urlsession-transport, netkit-urlsession, ahc, ahc-delegate (AsyncHTTPClient's delegate
//       API, the body collected on the event loop), ahc-transport, ahc-whole (the transport asked for the whole
//       body, as the engine asks), netkit-ahc
//   transport-bench __bounds-child <idle|send|stream|paused|sse> <urlsession|ahc> <URL> [seconds]
//       one road of netkit-bench's bounds cases, run by it: NETKIT_BENCH_BOUNDS_CHILD=<this program>
//       NETKIT_BENCH_BOUNDS_TRANSPORTS=ahc netkit-bench bounds
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetAsyncHTTPClient
import NetKit

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == BoundsChild.command {
    try await BoundsChild.run(Array(arguments.dropFirst()))
    exit(0)
}
guard let first = arguments.first, let base = URL(string: first), base.host == "127.0.0.1" || base.host == "localhost"
else {
    print("usage: transport-bench http://127.0.0.1:PORT [small|concurrent|download|all|memory] …")
    exit(2)
}
let selected = arguments.count > 1 ? arguments[1] : "all"
let inFlight = 64

// Both engines may open a connection per request in flight.
let sessionConfiguration = URLSessionConfiguration.default
sessionConfiguration.httpMaximumConnectionsPerHost = inFlight
var clientConfiguration = AsyncHTTPClientTransport.defaultConfiguration
clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = inFlight
let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)

func makeClient(_ key: String) -> any BenchClient {
    switch key {
    case "urlsession":
        RawURLSession(session: URLSession(configuration: sessionConfiguration), base: base)
    case "netkit-urlsession":
        // URLSession cannot pause a transfer: the buffer must hold the whole download (raw data(for:) does too).
        NetKitClient(
            name: "NetKit over URLSession", baseURL: base,
            transport: URLSessionTransport(configuration: sessionConfiguration, bufferLimit: downloadLimit))
    case "urlsession-transport":
        TransportOnlyClient(
            name: "URLSessionTransport alone (no engine)",
            transport: URLSessionTransport(configuration: sessionConfiguration, bufferLimit: downloadLimit), base: base)
    case "ahc":
        RawAsyncHTTPClient(client: client, base: base)
    case "ahc-delegate":
        RawAsyncHTTPClientDelegate(client: client, base: base)
    case "ahc-whole":
        TransportWholeBodyClient(
            name: "AsyncHTTPClientTransport alone, whole body", transport: AsyncHTTPClientTransport(client: client),
            base: base)
    case "ahc-transport":
        TransportOnlyClient(
            name: "AsyncHTTPClientTransport alone (no engine)", transport: AsyncHTTPClientTransport(client: client),
            base: base)
    default:
        NetKitClient(
            name: "NetKit over AsyncHTTPClient", baseURL: base, transport: AsyncHTTPClientTransport(client: client))
    }
}

let keys = ["urlsession", "urlsession-transport", "netkit-urlsession", "ahc", "ahc-transport", "netkit-ahc"]
let clock = ContinuousClock()

/// Runs `total` small GETs, `concurrency` at a time; the elapsed time.
func smallGETs(_ bench: any BenchClient, total: Int, concurrency: Int) async throws -> Duration {
    try await clock.measure {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let share = total / concurrency + (worker < total % concurrency ? 1 : 0)
                group.addTask { for _ in 0..<share { try await bench.small() } }
            }
            try await group.waitForAll()
        }
    }
}

/// Every client, round after round (interleaved, so that noise spreads over all of them); medians per client.
func measure(rounds: Int, _ sample: (any BenchClient) async throws -> Double) async throws -> [(String, Double)] {
    let clients = keys.map(makeClient)
    var samples = Array(repeating: Samples(), count: clients.count)
    for _ in 0..<rounds {
        for (index, bench) in clients.enumerated() {
            samples[index].rates.append(try await sample(bench))
        }
    }
    return zip(clients.map(\.name), samples.map(\.median)).map { ($0, $1) }
}

func printTable(_ title: String, unit: String, _ rows: [(String, Double)], digits: Int = 0) {
    print("## \(title)")
    print("| client | \(unit) (median) | vs raw |")
    print("| --- | --- | --- |")
    // Rows come in two groups of three: raw, transport alone, NetKit.
    for (index, (name, value)) in rows.enumerated() {
        let raw = rows[index - index % 3].1
        print("| \(name) | \(format(value, digits)) | \(index % 3 == 0 ? "" : "\(format(value / raw, 3))×") |")
    }
    if rows.count == 6 {
        print("NetKit over AsyncHTTPClient / NetKit over URLSession: \(format(rows[5].1 / rows[2].1, 2))×")
    }
    print("")
}

/// Every transport's memory over `requests` requests, 64 in flight: RSS after each 10,000.
func memoryCase(_ key: String, requests: Int) async throws {
    let bench = makeClient(key)
    _ = try await smallGETs(bench, total: 2_000, concurrency: inFlight)
    var line = "| \(bench.name) | \(format(residentMiB() ?? 0, 1))"
    var done = 0
    let started = clock.now
    while done < requests {
        let batch = min(10_000, requests - done)
        _ = try await smallGETs(bench, total: batch, concurrency: inFlight)
        done += batch
        line += " | \(format(residentMiB() ?? 0, 1))"
    }
    let rate = Double(requests) / (clock.now - started).seconds
    print(line + " | \(format(rate)) req/s |")
}

let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
print("transport-bench on \(ProcessInfo.processInfo.activeProcessorCount) cores, server \(base.absoluteString)\n")
switch selected {
case "profile":
    let bench = makeClient(arguments.count > 2 ? arguments[2] : "netkit-ahc")
    let count = arguments.count > 3 ? Int(arguments[3]) ?? 20_000 : 20_000
    let concurrency = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
    _ = try await smallGETs(bench, total: 500, concurrency: concurrency)
    let elapsed = try await smallGETs(bench, total: count, concurrency: concurrency)
    print("\(bench.name): \(format(Double(count) / elapsed.seconds)) requests/s, \(concurrency) in flight")
case "memory":
    try await memoryCase(
        arguments.count > 2 ? arguments[2] : "netkit-ahc",
        requests: arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000)
default:
    // Warm-up: connections, caches, lazy initialisation.
    for key in keys { _ = try await smallGETs(makeClient(key), total: 500, concurrency: inFlight) }
    if selected == "small" || selected == "all" {
        let count = 2_000
        printTable(
            "sequential small GETs (\(count) per sample, \(rounds) samples)", unit: "requests/s",
            try await measure(rounds: rounds) {
                Double(count) / (try await smallGETs($0, total: count, concurrency: 1)).seconds
            })
    }
    if selected == "concurrent" || selected == "all" {
        let count = 20_000
        printTable(
            "small GETs, \(inFlight) in flight (\(count) per sample, \(rounds) samples)", unit: "requests/s",
            try await measure(rounds: rounds) {
                Double(count) / (try await smallGETs($0, total: count, concurrency: inFlight)).seconds
            })
    }
    if selected == "download" || selected == "all" {
        printTable(
            "100 MB download into memory (\(rounds) samples)", unit: "MB/s",
            try await measure(rounds: rounds) { bench in
                var bytes = 0
                let elapsed = try await clock.measure { bytes = try await bench.download() }
                precondition(bytes == 100_000_000, "\(bench.name) downloaded \(bytes) bytes")
                return Double(bytes) / 1e6 / elapsed.seconds
            }, digits: 0)
    }
    if let peak = residentMiB("VmHWM") { print("peak RSS of the process: \(format(peak, 1)) MiB") }
}
try await client.shutdown().get()

// netkit-bench: NetKit against its baselines, in the same run, on loopback.
//
//   swift run -c release netkit-bench [refresh|engine|cache|send|stream|slowconsumer|parsers|uploads|all] [rounds] [loopback|nginx]
//   swift run -c release netkit-bench [bounds|tiny-chunks|paused-body|gzip-bomb|sse-retry0] [rounds]   (not in `all`)
//   swift run -c release netkit-bench downloads [rounds]   (not in `all`; see DownloadBenchmark.swift)
//
// The third argument picks the server of `send` and `stream` (nginx, when installed, is started by the bench).
// NETKIT_BENCH_SEND_ONLY=<index> runs one `send` contender alone, for a profiler (`perf stat`, `perf record`).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKit
import NetKitLock

struct Profile: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
}

struct GetProfile: NetworkRequest {
    typealias Response = Profile
    var path: String { "/profile" }
    var method: HTTPMethod { .get }
}

struct RefreshTokens: NetworkRequest {
    struct Tokens: Decodable { let accessToken: String }
    typealias Response = Tokens
    var path: String { "/auth/refresh" }
    var method: HTTPMethod { .post }
    var allowsRetry: Bool { false }
}

final class Store: TokenRefreshProvider, Sendable {
    let manager: NetworkManager
    let token = Lock("none")
    init(manager: NetworkManager) { self.manager = manager }
    var current: String { token.withLock { $0 } }
    func refreshTokenIfNeeded() async throws {
        let tokens = try await manager.send(RefreshTokens(), accessToken: nil)
        token.withLock { $0 = tokens.accessToken }
    }
}

let arguments = CommandLine.arguments.dropFirst()
let selected = arguments.first ?? "all"
if selected == SlowConsumerChild.command {
    try await SlowConsumerChild.run(Array(arguments.dropFirst()))
    exit(0)
}
let serverKind = arguments.dropFirst(2).first ?? "loopback"
let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 30
if try await runDownloadBenchmarks(selected: selected, arguments: Array(arguments), rounds: rounds) { exit(0) }
if try await runUploadBenchmarks(selected: selected, arguments: Array(arguments), rounds: rounds) { exit(0) }
if try await runBoundsBenchmarks(selected: selected, arguments: Array(arguments), rounds: rounds) { exit(0) }
let api = BenchmarkAPI()
let server = try LoopbackServer { api.handle($0) }
defer { server.stop() }
let clock = ContinuousClock()

/// 100 concurrent requests through 401 → one refresh → 200, against 100 plain 200s.
func refreshCase() async throws {
    let batch = 100
    let manager = NetworkManager(baseURL: server.baseURL)
    let store = Store(manager: manager)
    manager.tokenRefresher = store
    manager.tokenRefreshPolicy = TokenRefreshPolicy(maxRefreshes: 1_000_000, interval: .seconds(1))

    func sendBatch() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<batch {
                group.addTask { _ = try await manager.send(GetProfile(), accessToken: { store.current }) }
            }
            try await group.waitForAll()
        }
    }

    var plain = Measurement(name: "100 × 200 (baseline)")
    var refreshing = Measurement(name: "100 × 401 → refresh → 200")
    var refreshesPerBatch: [Int] = []
    // Warm-up: connections, caches, the first token.
    api.expire()
    try await sendBatch()
    for _ in 0..<rounds {
        plain.samples.append(try await clock.measure { try await sendBatch() })
        api.expire()
        let before = api.refreshes
        refreshing.samples.append(try await clock.measure { try await sendBatch() })
        refreshesPerBatch.append(api.refreshes - before)
    }
    let ratio = Measurement.seconds(refreshing.median) / Measurement.seconds(plain.median)
    print("## refresh: \(batch) concurrent requests per batch, \(rounds) rounds, medians")
    print("| case | median batch | p90 batch | requests/s | server refreshes per batch |")
    print("| --- | --- | --- | --- | --- |")
    for (measurement, refreshes) in [
        (plain, "0"), (refreshing, "\(refreshesPerBatch.min()!)–\(refreshesPerBatch.max()!)"),
    ] {
        let seconds = Measurement.seconds(measurement.median)
        print(
            "| \(measurement.name) | \(format(seconds * 1000)) ms | \(format(Measurement.seconds(measurement.p90) * 1000)) ms | \(format(Double(batch) / seconds, 0)) | \(refreshes) |"
        )
    }
    print("ratio (refresh / baseline): \(format(ratio))×")
    print("")
}

print(
    "netkit-bench on \(ProcessInfo.processInfo.activeProcessorCount) cores, server \(server.baseURL.absoluteString)\n")
if selected == "refresh" || selected == "all" { try await refreshCase() }
if selected == "engine" || selected == "all" { try await EngineBenchmark.run(rounds: rounds) }
if selected == "cache" || selected == "all" { try await CacheBenchmark.run(rounds: rounds) }
// One cache case alone, for a profiler: `netkit-bench cache-profile <case number> [requests]`.
if selected == "cache-profile" {
    let arguments = CommandLine.arguments
    try await CacheBenchmark.profile(
        case: arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1,
        requests: arguments.count > 3 ? Int(arguments[3]) ?? 20_000 : 20_000)
}
// One engine case alone, for a profiler: `netkit-bench engine-profile <case number> [requests]`.
if selected == "engine-profile" {
    let arguments = CommandLine.arguments
    try await EngineBenchmark.profile(
        case: arguments.count > 2 ? Int(arguments[2]) ?? 4 : 4,
        requests: arguments.count > 3 ? Int(arguments[3]) ?? 200_000 : 200_000)
}
if selected == "send" || selected == "all" { try await SendBenchmark.run(rounds: rounds, serverKind: serverKind) }
if selected == "stream" || selected == "all" {
    try await streamCase(rounds: max(3, rounds / 3), serverKind: serverKind)
}
if selected == "slowconsumer" || selected == "all" { try await SlowConsumerBenchmark.run(rounds: max(3, rounds / 10)) }
if selected == "parsers" || selected == "all" { try await parsersCase(rounds: max(5, rounds / 3)) }
if let peak = peakResidentMiB() { print("peak RSS of the process: \(format(peak, 1)) MiB") }

// netkit-bench: NetKit against its baselines, in the same run, on loopback.
//
//   swift run -c release netkit-bench [refresh|overhead|parsers|uploads|all] [rounds]
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKit
import Synchronization

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
    let token = Mutex("none")
    init(manager: NetworkManager) { self.manager = manager }
    var current: String { token.withLock { $0 } }
    func refreshTokenIfNeeded() async throws {
        let tokens = try await manager.send(RefreshTokens(), accessToken: nil)
        token.withLock { $0 = tokens.accessToken }
    }
}

let arguments = CommandLine.arguments.dropFirst()
let selected = arguments.first ?? "all"
let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 30
if try await runUploadBenchmarks(selected: selected, arguments: Array(arguments), rounds: rounds) { exit(0) }
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
            for _ in 0..<batch { group.addTask { _ = try await manager.send(GetProfile(), accessToken: { store.current }) } }
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
    for (measurement, refreshes) in [(plain, "0"), (refreshing, "\(refreshesPerBatch.min()!)–\(refreshesPerBatch.max()!)")] {
        let seconds = Measurement.seconds(measurement.median)
        print("| \(measurement.name) | \(format(seconds * 1000)) ms | \(format(Measurement.seconds(measurement.p90) * 1000)) ms | \(format(Double(batch) / seconds, 0)) | \(refreshes) |")
    }
    print("ratio (refresh / baseline): \(format(ratio))×")
    print("")
}

/// Sequential small GETs: NetKit's send against raw URLSession.data(for:) plus the same JSONDecoder.
func overheadCase() async throws {
    let count = 500
    api.expire()
    let token = api.validToken
    let manager = NetworkManager(baseURL: server.baseURL)
    let session = URLSession(configuration: .default)
    var request = URLRequest(url: server.baseURL.appendingPathComponent("profile"))
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let raw = request
    let transport = URLSessionTransport()
    let transportRequest = TransportRequest(head: raw)
    var netkit = Measurement(name: "NetKit send")
    var transportOnly = Measurement(name: "URLSessionTransport + JSONDecoder (no engine)")
    var baseline = Measurement(name: "URLSession data(for:) + JSONDecoder")
    for _ in 0..<20 {
        _ = try await manager.send(GetProfile(), accessToken: { token })
        _ = try await session.data(for: raw)
    }
    for _ in 0..<max(3, rounds / 5) {
        baseline.samples.append(try await clock.measure {
            for _ in 0..<count {
                let (data, _) = try await session.data(for: raw)
                _ = try JSONDecoder().decode(Profile.self, from: data)
            }
        })
        transportOnly.samples.append(try await clock.measure {
            for _ in 0..<count {
                let response = try await transport.send(transportRequest)
                _ = try JSONDecoder().decode(Profile.self, from: try await response.body.collect(upTo: 1 << 20))
            }
        })
        netkit.samples.append(try await clock.measure {
            for _ in 0..<count { _ = try await manager.send(GetProfile(), accessToken: { token }) }
        })
    }
    session.finishTasksAndInvalidate()
    print("## overhead: \(count) sequential GETs per sample, \(netkit.samples.count) samples, medians")
    print("| case | median | requests/s |")
    print("| --- | --- | --- |")
    for measurement in [baseline, transportOnly, netkit] {
        let seconds = Measurement.seconds(measurement.median)
        print("| \(measurement.name) | \(format(seconds * 1000, 1)) ms | \(format(Double(count) / seconds, 0)) |")
    }
    print("ratio (NetKit / URLSession): \(format(Measurement.seconds(netkit.median) / Measurement.seconds(baseline.median)))×")
    print("ratio (URLSessionTransport / URLSession): \(format(Measurement.seconds(transportOnly.median) / Measurement.seconds(baseline.median)))×")
    print("")
}

print("netkit-bench on \(ProcessInfo.processInfo.activeProcessorCount) cores, server \(server.baseURL.absoluteString)\n")
if selected == "refresh" || selected == "all" { try await refreshCase() }
if selected == "overhead" || selected == "all" { try await overheadCase() }
if selected == "parsers" || selected == "all" { try await parsersCase(rounds: max(5, rounds / 3)) }
if let peak = peakResidentMiB() { print("peak RSS of the process: \(format(peak, 1)) MiB") }

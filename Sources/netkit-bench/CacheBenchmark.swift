import Foundation
import NetKit
import Synchronization

/// `cache`: what the response cache costs per request, in memory and on disk, without a network: a hit against the
/// same request answered by a transport that answers from memory, and a miss that stores, for a small JSON body and
/// a body of 64 KiB. The disk store's figures are its whole price: one file read (or written and renamed) per
/// request, through the page cache.
enum CacheBenchmark {
    static let large = Data(repeating: 0x61, count: 64 << 10)

    /// Answers every request at once, fresh for an hour: the small JSON body, or 64 KiB for a path under `/large`.
    struct FreshTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let isLarge = request.head.path.hasPrefix("/v1/large")
            let head = HTTPResponseHead(
                statusCode: 200, reasonPhrase: "OK",
                headerFields: try HTTPHeaderFields(
                    // No `Date`: the engine case's is days old, which would make every response stale on arrival.
                    EngineBenchmark.headerFields.filter { $0.name != "Date" }
                        + [(name: "Cache-Control", value: "max-age=3600")]))
            return TransportResponse(
                head: head, body: ResponseBody(data: isLarge ? CacheBenchmark.large : EngineBenchmark.body))
        }
    }

    /// A GET of `path`: the small JSON decoded, or the large body as it is.
    struct Get: Endpoint, Sendable {
        typealias Response = Data
        let path: String
        var method: HTTPMethod { .get }
    }

    /// A path no request used before: every request a miss that stores.
    static let counter = Atomic<Int>(0)
    static func freshPath(_ prefix: String) -> String {
        "\(prefix)/\(counter.add(1, ordering: .relaxed).newValue)"
    }

    /// The cases, over a directory of their own (removed by the caller).
    static func makeCases(directory: URL) async throws -> [EngineBenchmark.Case] {
        let base = URL(string: "https://api.example.com/v1")!
        func manager(_ cache: ResponseCache?) -> NetworkManager {
            let manager = NetworkManager(baseURL: base, transport: FreshTransport())
            manager.responseCache = cache
            return manager
        }
        let plain = manager(nil)
        let memory = manager(ResponseCache(maximumBytes: 256 << 20))
        let disk = manager(try ResponseCache(directory: directory, maximumBytes: 256 << 20))
        // The hits find what one request stored.
        for manager in [memory, disk] {
            _ = try await manager.send(Get(path: "/small"))
            _ = try await manager.send(Get(path: "/large"))
        }
        return [
            EngineBenchmark.Case(name: "no cache: the transport answers (small)") {
                _ = try await plain.send(Get(path: "/small"))
            },
            EngineBenchmark.Case(name: "memory, hit (small)") { _ = try await memory.send(Get(path: "/small")) },
            EngineBenchmark.Case(name: "disk, hit (small)") { _ = try await disk.send(Get(path: "/small")) },
            EngineBenchmark.Case(name: "memory, miss that stores (small)") {
                _ = try await memory.send(Get(path: freshPath("/small")))
            },
            EngineBenchmark.Case(name: "disk, miss that stores (small)") {
                _ = try await disk.send(Get(path: freshPath("/small")))
            },
            EngineBenchmark.Case(name: "no cache: the transport answers (64 KiB)") {
                _ = try await plain.send(Get(path: "/large"))
            },
            EngineBenchmark.Case(name: "memory, hit (64 KiB)") { _ = try await memory.send(Get(path: "/large")) },
            EngineBenchmark.Case(name: "disk, hit (64 KiB)") { _ = try await disk.send(Get(path: "/large")) },
            EngineBenchmark.Case(name: "disk, miss that stores (64 KiB)") {
                _ = try await disk.send(Get(path: freshPath("/large")))
            },
        ]
    }

    /// Runs case number `index` (0-based, in the table's order) `requests` times, for a profiler.
    nonisolated static func profile(case index: Int, requests: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "netkit-bench-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let chosen = try await makeCases(directory: directory)[index]
        print("profiling: \(chosen.name), \(requests) requests")
        try await chosen.run(count: requests)
    }

    nonisolated static func run(rounds: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "netkit-bench-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases = try await makeCases(directory: directory)
        let count = 1_000
        var cpu = Array(repeating: [Double](), count: cases.count)
        var wall = Array(repeating: [Double](), count: cases.count)
        for round in 0...rounds {
            for index in cases.indices {
                let before = SendBenchmark.processCPUSeconds()
                let start = ContinuousClock.now
                try await cases[index].run(count: count)
                let elapsed = ContinuousClock.now - start
                guard round > 0 else { continue }
                cpu[index].append((SendBenchmark.processCPUSeconds() - before) / Double(count))
                wall[index].append(Measurement.seconds(elapsed) / Double(count))
            }
        }
        print("## cache: the response cache per request, no network (\(count) per sample, \(rounds) rounds, medians)")
        print("| case | CPU per request | wall time per request |")
        print("| --- | --- | --- |")
        for (item, (cpu, wall)) in zip(cases, zip(cpu, wall)) {
            let cpuMedian = cpu.sorted()[cpu.count / 2] * 1e6
            let wallMedian = wall.sorted()[wall.count / 2] * 1e6
            print("| \(item.name) | \(format(cpuMedian, 1)) µs | \(format(wallMedian, 1)) µs |")
        }
        print("")
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKit
#if canImport(Glibc)
import Glibc
#endif

/// The small JSON GET of the `send` case (no token, so no refresh road is involved).
struct GetSmall: NetworkRequest, Sendable {
    typealias Response = Profile
    var path: String { "/small" }
    var method: HTTPMethod { .get }
}

/// `send`: `NetworkManager.send` of small GETs against raw `URLSession.data(for:)` (plus the same `JSONDecoder`),
/// one after another and with 64 in flight, interleaved round by round in one process, with the same session
/// configuration and server. `URLSessionTransport` alone (no engine, its body streamed or whole) is measured
/// beside them, to split the library's cost between the transport and the engine, and the process's CPU time per
/// request with them (a shared machine's neighbours slow the wall clock, not the CPU time).
enum SendBenchmark {
    static let sequentialCount = 200
    static let concurrentCount = 1024
    static let inFlight = 64

    struct Contender {
        let name: String
        let send: @Sendable () async throws -> Void
    }

    /// One contender's samples: wall-clock time and the process's CPU time (user + system) per sample.
    struct Samples {
        var wall = Measurement(name: "")
        var cpu: [Double] = []
    }

    nonisolated static func run(rounds: Int, serverKind: String) async throws {
        let server = try BenchmarkServer.make(serverKind)
        defer { server.stop() }
        let configuration = URLSessionConfiguration.default
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let transport = URLSessionTransport(configuration: configuration)
        let manager = NetworkManager(baseURL: server.baseURL, transport: transport)
        // EKNetwork's `session:` initializer: NetKit borrows the same session the raw contender uses.
        let borrowing = NetworkManager(baseURL: server.baseURL, session: session)
        let url = server.baseURL.appending(path: "small")
        let transportRequest = TransportRequest(head: try HTTPRequestHead(url: url))
        let contenders = [
            Contender(name: "URLSession `data(for:)` + JSONDecoder") {
                let (data, _) = try await session.data(for: URLRequest(url: url))
                _ = try JSONDecoder().decode(Profile.self, from: data)
            },
            Contender(name: "`URLSessionTransport` (streamed body) + JSONDecoder, no engine") {
                let response = try await transport.send(transportRequest)
                _ = try JSONDecoder().decode(Profile.self, from: try await response.body.collect(upTo: 1 << 20))
            },
            Contender(name: "`URLSessionTransport` (body whole, as `send` asks) + JSONDecoder, no engine") {
                var request = transportRequest
                request.wholeBody = WholeBodyLimits(success: 1 << 26, failure: 1 << 20)
                let response = try await transport.send(request)
                _ = try JSONDecoder().decode(Profile.self, from: try await response.body.collect(upTo: 1 << 20))
            },
            Contender(name: "NetKit `NetworkManager.send`") {
                _ = try await manager.send(GetSmall())
            },
            Contender(name: "NetKit `NetworkManager.send` on a borrowed `URLSession` (`session:`)") {
                _ = try await borrowing.send(GetSmall())
            },
        ]
        if let only = ProcessInfo.processInfo.environment["NETKIT_BENCH_SEND_ONLY"].flatMap(Int.init) {
            // For a profiler: one contender, one after another and 64 in flight, nothing else in the process.
            try await batch(count: 20 * sequentialCount, width: 1, contenders[only].send)
            try await batch(count: 4 * concurrentCount, width: inFlight, contenders[only].send)
            return
        }
        for (label, count, width) in [
            ("one after another", sequentialCount, 1), ("\(inFlight) in flight", concurrentCount, inFlight),
        ] {
            var samples = Array(repeating: Samples(), count: contenders.count)
            for round in 0...rounds {
                // Round 0 warms up (connections, caches) and is not recorded. The order alternates, so that
                // neither side always runs right after the other.
                let order = round % 2 == 0 ? Array(contenders.indices) : contenders.indices.reversed()
                for index in order {
                    let cpuBefore = processCPUSeconds()
                    let duration = try await clock.measure {
                        try await batch(count: count, width: width, contenders[index].send)
                    }
                    let cpu = processCPUSeconds() - cpuBefore
                    if round > 0 {
                        samples[index].wall.samples.append(duration)
                        samples[index].cpu.append(cpu)
                    }
                }
            }
            print("## send: small JSON GETs \(label), \(count) per sample, \(rounds) rounds, medians (\(server.name))")
            print("| case | median | requests/s (median) | requests/s (best) | process CPU per request (median) |")
            print("| --- | --- | --- | --- | --- |")
            for (contender, sample) in zip(contenders, samples) {
                let median = Measurement.seconds(sample.wall.median)
                let best = Measurement.seconds(sample.wall.samples.min()!)
                let cpu = sample.cpu.sorted()[sample.cpu.count / 2]
                print(
                    "| \(contender.name) | \(format(median * 1000, 1)) ms | \(format(Double(count) / median, 0)) | \(format(Double(count) / best, 0)) | \(format(cpu / Double(count) * 1e6, 0)) µs |"
                )
            }
            let targeted: Set = [3, 4]
            for (index, name) in [
                (3, "NetKit send"), (4, "NetKit send, borrowed session"), (1, "URLSessionTransport, streamed"),
                (2, "URLSessionTransport, whole"),
            ] {
                let cpuRatios = zip(samples[0].cpu, samples[index].cpu).map { $0 / $1 }.sorted()
                print(
                    "\(name) / URLSession (requests/s): \(throughputRatio(samples[index].wall, count, samples[0].wall, count))\(targeted.contains(index) ? " (target ≥ 0.90)" : ""); requests per CPU second: \(format(cpuRatios[cpuRatios.count / 2]))×"
                )
            }
            print("")
        }
    }

    /// The CPU time this process has used so far (user + system), in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// `count` requests, `width` at a time, each worker sending its share one after another.
    nonisolated static func batch(count: Int, width: Int, _ send: @escaping @Sendable () async throws -> Void)
        async throws
    {
        if width == 1 {
            for _ in 0..<count { try await send() }
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<width {
                let share = count / width + (worker < count % width ? 1 : 0)
                group.addTask {
                    for _ in 0..<share { try await send() }
                }
            }
            try await group.waitForAll()
        }
    }
}

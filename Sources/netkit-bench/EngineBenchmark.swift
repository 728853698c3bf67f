import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKit

/// `engine`: what NetKit itself costs per request, without a network: `NetworkManager.send` and `RequestExecutor.send`
/// over a transport that answers from memory, against their parts (building the request, building a response head,
/// decoding the JSON body). The I/O benchmarks (`send`, Benchmarks/Transports) show how much of a real request this
/// is; this case shows where it goes, without a server's noise.
enum EngineBenchmark {
    static let body = Data(#"{"id":1,"name":"ann","email":"ann@example.com"}"#.utf8)
    static let headerFields: [(name: String, value: String)] = [
        ("Server", "nginx/1.22.1"), ("Date", "Mon, 23 Nov 2026 12:00:00 GMT"), ("Content-Type", "application/json"),
        ("Content-Length", "47"), ("Connection", "keep-alive"), ("ETag", "\"6563a1b0-2f\""),
    ]
    static let headerDictionary = Dictionary(uniqueKeysWithValues: headerFields.map { ($0.name, $0.value) })

    /// Answers every request with the same small JSON body, building (and checking) its head as a real transport does.
    struct MemoryTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let head = HTTPResponseHead(
                statusCode: 200, reasonPhrase: "OK", headerFields: try HTTPHeaderFields(EngineBenchmark.headerFields))
            return TransportResponse(head: head, body: ResponseBody(data: EngineBenchmark.body))
        }
    }

    /// ``MemoryTransport`` that suspends once before it answers, as a real transport does while it waits for the
    /// network: with many requests in flight, each one's state goes cold between its start and its end.
    struct SuspendingMemoryTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            await Task.yield()
            return try await MemoryTransport().send(request)
        }
    }

    /// The small GET as NetCore's own request type: decoded without any Foundation networking type.
    struct GetSmallEndpoint: Endpoint, Sendable {
        typealias Response = Profile
        var path: String { "/small" }
        var method: HTTPMethod { .get }
    }

    /// The small GET as an EKNetwork request that decodes with a `decodeResponse` of its own, which is given the
    /// `HTTPURLResponse` its signature asks for: the facade's road as it was for every request before it learned to
    /// tell NetKit's own decoding from a request's own.
    struct GetSmallOwnDecoding: NetworkRequest, Sendable {
        typealias Response = Profile
        var path: String { "/small" }
        var method: HTTPMethod { .get }
        func decodeResponse(data: Data, response: URLResponse) throws -> Profile {
            try JSONDecoder().decode(Profile.self, from: data)
        }
    }

    /// The small GET with nothing to decode: what is left is the engine alone.
    struct PingEndpoint: Endpoint, Sendable {
        typealias Response = EmptyResponse
        var path: String { "/small" }
        var method: HTTPMethod { .get }
    }

    struct Case {
        let name: String
        var inFlight = 1
        let run: @Sendable () async throws -> Void

        init(name: String, inFlight: Int = 1, run: @escaping @Sendable () async throws -> Void) {
            self.name = name
            self.inFlight = inFlight
            self.run = run
        }

        /// Runs `count` requests, `inFlight` at a time.
        func run(count: Int) async throws {
            guard inFlight > 1 else {
                for _ in 0..<count { try await run() }
                return
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<inFlight {
                    group.addTask { for _ in 0..<(count / inFlight) { try await run() } }
                }
                try await group.waitForAll()
            }
        }
    }

    nonisolated static func run(rounds: Int) async throws {
        let cases = makeCases()
        let count = 2_000
        var samples = Array(repeating: [Double](), count: cases.count)
        for round in 0...rounds {
            for index in cases.indices {
                let before = SendBenchmark.processCPUSeconds()
                try await cases[index].run(count: count)
                if round > 0 { samples[index].append((SendBenchmark.processCPUSeconds() - before) / Double(count)) }
            }
        }
        print("## engine: NetKit's own CPU per request, no network (\(count) per sample, \(rounds) rounds, medians)")
        print("| case | CPU per request |")
        print("| --- | --- |")
        for (item, times) in zip(cases, samples) {
            print("| \(item.name) | \(format(times.sorted()[times.count / 2] * 1e6, 1)) µs |")
        }
        print("")
    }

    /// Runs case number `index` (0-based, in the table's order) `requests` times, for a profiler.
    nonisolated static func profile(case index: Int, requests: Int) async throws {
        let chosen = makeCases()[index]
        print("profiling: \(chosen.name), \(requests) requests")
        try await chosen.run(count: requests)
    }

    static func makeCases() -> [Case] {
        let base = URL(string: "https://api.example.com/v1")!
        let manager = NetworkManager(baseURL: base, transport: MemoryTransport())
        let executor = RequestExecutor(transport: MemoryTransport())
        let suspending = SuspendingMemoryTransport()
        let suspendingManager = NetworkManager(baseURL: base, transport: suspending)
        // The same engines with a whole-request timeout, which adds the deadline stage to the road.
        let timedManager = NetworkManager(baseURL: base, transport: MemoryTransport())
        timedManager.defaultTimeout = .seconds(30)
        let timedSuspendingManager = NetworkManager(baseURL: base, transport: suspending)
        timedSuspendingManager.defaultTimeout = .seconds(30)
        // The same engines with a plugin told every request event, which does nothing with them: what making the
        // events costs.
        let observedManager = NetworkManager(baseURL: base, transport: MemoryTransport())
        observedManager.plugins = [IgnoringObserver()]
        let observedSuspendingManager = NetworkManager(baseURL: base, transport: suspending)
        observedSuspendingManager.plugins = [IgnoringObserver()]
        let builder = RequestBuilder(userAgent: "netkit-bench")
        let url = base.appending(path: "small")
        return [
            Case(name: "JSONDecoder alone") { _ = try JSONDecoder().decode(Profile.self, from: body) },
            Case(name: "`RequestBuilder.makeRequest`") { _ = try builder.makeRequest(GetSmall(), baseURL: base) },
            Case(name: "`HTTPResponseHead` of 6 checked fields (the seam's response head)") {
                _ = HTTPResponseHead(statusCode: 200, headerFields: try HTTPHeaderFields(headerFields))
            },
            Case(
                name:
                    "`HTTPURLResponse` of 6 headers (the old seam's head; now built only for a request's own `decodeResponse`)"
            ) {
                _ = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headerDictionary)
            },
            Case(name: "`RequestExecutor.send`, an `Endpoint`, no plugins") {
                _ = try await executor.send(GetSmallEndpoint(), baseURL: base)
            },
            Case(name: "`NetworkManager.send`, an `Endpoint`") { _ = try await manager.send(GetSmallEndpoint()) },
            Case(name: "`NetworkManager.send`, a `NetworkRequest` (EKNetwork's `decodeResponse`)") {
                _ = try await manager.send(GetSmall())
            },
            Case(
                name:
                    "`NetworkManager.send`, a `NetworkRequest` with a `decodeResponse` of its own (gets an `HTTPURLResponse`)"
            ) {
                _ = try await manager.send(GetSmallOwnDecoding())
            },
            Case(name: "`NetworkManager.send`, an `Endpoint`, 64 in flight", inFlight: 64) {
                _ = try await manager.send(GetSmallEndpoint())
            },
            Case(name: "`NetworkManager.send`, an `Endpoint` of `EmptyResponse` (no decoding)") {
                _ = try await manager.send(PingEndpoint())
            },
            Case(name: "the transport alone, suspending once, 64 in flight, JSON decoded", inFlight: 64) {
                let response = try await suspending.send(TransportRequest(head: try HTTPRequestHead(url: url)))
                _ = try JSONDecoder().decode(Profile.self, from: response.body.bufferedData ?? Data())
            },
            Case(name: "`NetworkManager.send` over it, an `Endpoint`, 64 in flight", inFlight: 64) {
                _ = try await suspendingManager.send(GetSmallEndpoint())
            },
            Case(name: "`NetworkManager.send`, an `Endpoint`, a 30 s timeout") {
                _ = try await timedManager.send(GetSmallEndpoint())
            },
            Case(
                name: "`NetworkManager.send` over the suspending transport, 64 in flight, a 30 s timeout", inFlight: 64
            ) {
                _ = try await timedSuspendingManager.send(GetSmallEndpoint())
            },
            Case(name: "`NetworkManager.send`, an `Endpoint`, its events observed") {
                _ = try await observedManager.send(GetSmallEndpoint())
            },
            Case(
                name: "`NetworkManager.send` over the suspending transport, 64 in flight, its events observed",
                inFlight: 64
            ) {
                _ = try await observedSuspendingManager.send(GetSmallEndpoint())
            },
        ]
    }
}

/// A plugin told every request event, which it drops, and in no hook: the engine's cost of making the events alone.
struct IgnoringObserver: RequestObserver, SelectivePlugin {
    var hooks: PluginHooks { [.observe] }
    func observe(_ event: RequestEvent) {}
}

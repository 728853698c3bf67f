import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKit

/// `engine`: what NetKit itself costs per request, without a network: `NetworkManager.send` over a transport
/// that answers from memory, against its parts (building the `URLRequest`, building the response head as an
/// `HTTPURLResponse`, decoding the JSON body). The I/O benchmarks (`send`, Benchmarks/Transports) show how much of a
/// real request this is; this case shows where it goes, without a server's noise.
enum EngineBenchmark {
    static let body = Data(#"{"id":1,"name":"ann","email":"ann@example.com"}"#.utf8)
    static let headerFields = [
        "Content-Type": "application/json", "Content-Length": "47", "Server": "nginx/1.22.1",
        "Date": "Mon, 23 Nov 2026 12:00:00 GMT", "Connection": "keep-alive", "ETag": "\"6563a1b0-2f\"",
    ]

    /// Answers every request with the same small JSON body, building its head as a real transport does.
    struct MemoryTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let head = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: EngineBenchmark.headerFields)!
            return TransportResponse(head: head, body: ResponseBody(data: EngineBenchmark.body))
        }
    }

    struct Case {
        let name: String
        let run: @Sendable () async throws -> Void
    }

    nonisolated static func run(rounds: Int) async throws {
        let base = URL(string: "https://api.example.com/v1")!
        let manager = NetworkManager(baseURL: base, transport: MemoryTransport())
        let builder = RequestBuilder(userAgent: "netkit-bench")
        let url = base.appending(path: "small")
        let cases = [
            Case(name: "JSONDecoder alone") { _ = try JSONDecoder().decode(Profile.self, from: body) },
            Case(name: "`RequestBuilder.makeRequest`") { _ = try builder.makeRequest(GetSmall(), baseURL: base) },
            Case(name: "`HTTPURLResponse` of 6 headers") {
                _ = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headerFields)
            },
            Case(name: "`NetworkManager.send` over a memory transport") { _ = try await manager.send(GetSmall()) },
        ]
        let count = 2_000
        var samples = Array(repeating: [Double](), count: cases.count)
        for round in 0...rounds {
            for index in cases.indices {
                let before = SendBenchmark.processCPUSeconds()
                for _ in 0..<count { try await cases[index].run() }
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
}

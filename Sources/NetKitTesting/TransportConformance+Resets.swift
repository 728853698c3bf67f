import Foundation
import LoopbackServer
import NetCore
import NetKitLock

extension TransportConformance {
    /// The reset-rate check of transparent retry: `requests` `GET`s, 32 at a time, then a fifth as many `POST`s
    /// without an `Idempotency-Key`, through the engine over the transport (default configuration, no retry policy),
    /// against a server that drops one kept-alive connection in `oneIn` as the next request arrives, without a byte
    /// of answer. The `GET`s must all succeed (the engine, or the transport's own stack, sends them once more), and no
    /// `POST` may reach the server twice (one whose connection was dropped fails, as it must).
    ///
    /// Not in ``checks`` (it takes seconds): run it alone, `try await TransportConformance.unansweredClosesUnderLoad()
    /// .run(against: transport)`.
    public static func unansweredClosesUnderLoad(requests: Int = 10_000, oneIn: Int = 1_000)
        -> TransportConformanceCheck
    {
        TransportConformanceCheck("kept-alive connections closed unanswered, 1 in \(oneIn)") { context in
            struct Tally {
                /// Requests seen on each connection.
                var perConnection: [Int: Int] = [:]
                /// Requests seen on connections that had answered one before.
                var reused = 0
                var dropped = 0
            }
            let tally = Lock(Tally())
            let server = try context.server(limits: LoopbackLimits()) { request in
                let drop = tally.withLock { tally -> Bool in
                    tally.perConnection[request.connectionNumber, default: 0] += 1
                    guard tally.perConnection[request.connectionNumber, default: 0] > 1 else { return false }
                    tally.reused += 1
                    guard tally.reused % max(1, oneIn) == 0 else { return false }
                    tally.dropped += 1
                    return true
                }
                return drop ? LoopbackResponse(faults: [.closeWithoutResponse]) : .text("ok")
            }
            defer { server.stop() }
            let executor = RequestExecutor(transport: context.transport)
            /// Sends `count` requests, 32 at a time; what failed, one line each.
            func run(_ count: Int, _ probe: @escaping @Sendable (Int) -> EventProbe) async -> [String] {
                await withTaskGroup(of: String?.self) { group in
                    var failures: [String] = []
                    var next = 0
                    func start(_ index: Int) {
                        group.addTask {
                            let probe = probe(index)
                            do {
                                _ = try await executor.send(probe, baseURL: server.baseURL)
                                return nil
                            } catch {
                                return "\(probe.path): \(String(reflecting: error))"
                            }
                        }
                    }
                    while next < min(32, count) {
                        start(next)
                        next += 1
                    }
                    // Each round takes one request's end and starts the next, until all have ended.
                    while let ended = await group.next() {
                        if let ended { failures.append(ended) }
                        if next < count {
                            start(next)
                            next += 1
                        }
                    }
                    return failures
                }
            }
            let getFailures = await run(requests) { EventProbe(path: "/get/\($0)") }
            let droppedUnderGets = tally.withLock { $0.dropped }
            try context.expect(
                droppedUnderGets > 0,
                "the server dropped no connection in \(requests) requests: too few were sent on kept-alive connections")
            try context.expect(
                getFailures.isEmpty,
                "\(getFailures.count) of \(requests) GETs failed where the server dropped \(droppedUnderGets) kept-alive "
                    + "connections unanswered (an idempotent request is sent once more); the first: "
                    + (getFailures.first ?? ""))
            _ = await run(requests / 5) { index in
                EventProbe(
                    path: "/post/\(index)", requestMethod: .post,
                    body: RequestBody(data: Data("order \(index)".utf8), contentType: "text/plain"))
            }
            let posts = server.requests.filter { $0.method == "POST" }.map(\.path)
            let twice = Dictionary(grouping: posts, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            try context.expect(
                twice.isEmpty,
                "\(twice.count) POSTs without an Idempotency-Key reached the server twice, the first: "
                    + (twice.first ?? ""))
        }
    }
}

import Foundation
import LoopbackServer
import NetKitLock

/// The demo's API, served by LoopbackServer on 127.0.0.1 (routes in DemoRoutes.swift). It records what it
/// answered, so that each section reports what happened on the wire rather than what should have.
final class DemoServer: Sendable {
    private let server: LoopbackServer
    private let log: Log
    /// The routes, for a section that reports what a resource saw.
    let routes: DemoRoutes

    init() throws {
        let log = Log()
        let routes = DemoRoutes()
        self.routes = routes
        server = try LoopbackServer { request in
            let response = routes.answer(request)
            log.record("\(request.method) \(request.path) → \(response.status)")
            return response
        }
        self.log = log
    }

    var baseURL: URL { server.baseURL }
    var requestCount: Int { server.requestCount }
    func stop() { server.stop() }

    /// The exchanges since the last call, in order: `["GET /todos → 200", …]`.
    func sinceLastLook() -> [String] { log.sinceLastLook() }

    /// The server's record of its answers.
    private final class Log: Sendable {
        private let state = Lock<(lines: [String], seen: Int)>(([], 0))

        func record(_ line: String) { state.withLock { $0.lines.append(line) } }

        func sinceLastLook() -> [String] {
            state.withLock { state in
                defer { state.seen = state.lines.count }
                return Array(state.lines[state.seen...])
            }
        }
    }
}

extension [String] {
    /// `GET /todos → 200, POST /todos → 201`, with repeats counted: `20× GET /me → 401`.
    var summary: String {
        var counts: [(line: String, count: Int)] = []
        for line in self {
            if let index = counts.firstIndex(where: { $0.line == line }) {
                counts[index].count += 1
            } else {
                counts.append((line, 1))
            }
        }
        return counts.map { $0.count == 1 ? $0.line : "\($0.count)× \($0.line)" }.joined(separator: ", ")
    }
}

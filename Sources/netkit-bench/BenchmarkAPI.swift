import Foundation
import LoopbackServer
import NetKitLock

/// The benchmarks' server logic: small JSON answers behind a token that the benchmark can expire.
final class BenchmarkAPI: Sendable {
    private struct State {
        var token = 0
        var refreshes = 0
        var unauthorized = 0
    }

    private let state = Lock(State())

    /// Invalidates the current token: every request now needs a refresh first.
    func expire() {
        state.withLock { $0.token += 1 }
    }

    var validToken: String { state.withLock { "token-\($0.token)" } }
    var refreshes: Int { state.withLock { $0.refreshes } }
    var unauthorized: Int { state.withLock { $0.unauthorized } }

    func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        if request.path == "/auth/refresh" {
            let token = state.withLock { state -> Int in
                state.refreshes += 1
                return state.token
            }
            return .json(#"{"accessToken":"token-\#(token)"}"#)
        }
        let valid = state.withLock { request.header("Authorization") == "Bearer token-\($0.token)" }
        guard valid else {
            state.withLock { $0.unauthorized += 1 }
            return .json(#"{"error":"expired"}"#, status: 401)
        }
        return .json(#"{"id":1,"name":"ann","email":"ann@example.com"}"#)
    }
}

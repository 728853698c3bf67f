import Foundation
import LoopbackServer

/// Tuples are not Equatable; comparing `[name, value]` arrays keeps expectations readable.
func pairs(_ fields: [(name: String, value: String)]) -> [[String]] {
    fields.map { [$0.name, $0.value] }
}

/// A server whose handler always answers with `response`.
func makeServer(
    limits: LoopbackLimits = LoopbackLimits(),
    _ response: LoopbackResponse = .text("ok")
) throws -> LoopbackServer {
    try LoopbackServer(limits: limits) { _ in response }
}

/// How long `body` took on the continuous clock.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return start.duration(to: clock.now)
}

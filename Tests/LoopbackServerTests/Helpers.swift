import Foundation
import LoopbackServer
import NetKitLock

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

/// Whether the server listening on `port` answers a GET with `marker`: how a test proves its server stopped. The
/// stopped server's port then refuses connections or, when a server of a test running beside it was given the same
/// port at once, answers something else (asking for a refused connection alone failed in CI that way).
func answers(_ marker: String, on port: Int) -> Bool {
    guard let client = try? TestClient(port: port) else { return false }
    defer { client.close() }
    guard (try? client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) != nil else { return false }
    return (try? client.readResponse().bodyText) == marker
}

/// How long `body` took on the continuous clock.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return start.duration(to: clock.now)
}

/// A value a producer or handler thread sets and the test reads afterwards.
final class Recorder<Value: Sendable>: Sendable {
    private let storage: Lock<Value>

    init(_ initial: Value) {
        storage = Lock(initial)
    }

    var value: Value {
        storage.withLock { $0 }
    }

    func set(_ value: Value) {
        storage.withLock { $0 = value }
    }

    func update(_ change: (inout Value) -> Void) {
        storage.withLock { change(&$0) }
    }
}

/// Runs blocking socket work on a thread of its own, so that a test that reads and writes megabytes through the
/// blocking `TestClient` never holds one of the few threads of Swift's cooperative pool, which every other test
/// running meanwhile needs.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

#if OpenAPI
import Foundation
import HTTPTypes
import NetAuth
import NetCore
import OpenAPIRuntime
import NetKitLock

/// A clock that does not sleep: it records every wait and returns at once, so `Retry-After` is checked without
/// waiting for it.
final class WaitRecordingClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    typealias Duration = Swift.Duration

    private let waits = Lock<[Duration]>([])

    var now: Instant { .now }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// The waits asked for, in order.
    var recorded: [Duration] { waits.withLock { $0 } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        waits.withLock { $0.append(max(.zero, deadline - .now)) }
    }
}

/// A bearer token that is "stale" until the one refresh makes it "fresh"; counts the refreshes.
struct CountingAuthenticator: Authenticator {
    let refreshes = Refreshes()

    final class Refreshes: Sendable {
        private let count = Lock(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }

    func apply(_ credential: String, to request: inout TransportRequest) throws {
        try request.setHeader("Authorization", "Bearer \(credential)")
    }

    func refresh(_ credential: String) async throws -> String {
        refreshes.increment()
        return "fresh"
    }
}

/// Records the operation IDs and attempts plugins see.
final class OperationWitness: Plugin, Sendable {
    private let seen = Lock<[String]>([])
    var entries: [String] { seen.withLock { $0 } }

    func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        seen.withLock { $0.append("\(request.operationID ?? "-") #\(context.attempt)") }
    }

    func didFinish(_ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics)
        async
    {
        let outcome = (try? result.get()).map { "\($0.statusCode)" } ?? "failure"
        seen.withLock { $0.append("finish \(request.operationID ?? "-") \(outcome)") }
    }
}

/// The bytes of `body`, however it is made.
func collect(_ body: HTTPBody?) async throws -> Data {
    guard let body else { return Data() }
    return try await Data(collecting: body, upTo: 64 << 20)
}

/// A request of the method and path given, with the fields given.
func request(_ method: HTTPRequest.Method, _ path: String, _ fields: [(String, String)] = []) -> HTTPRequest {
    var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
    for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    return request
}

/// A body that can be iterated once, of unknown length, made of `chunks`, that fails after them when `failure`
/// is given.
func singlePassBody(_ chunks: [Data], failingWith failure: (any Error)? = nil) -> HTTPBody {
    let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
        for chunk in chunks { continuation.yield(ArraySlice(chunk)) }
        continuation.finish(throwing: failure)
    }
    return HTTPBody(stream, length: .unknown, iterationBehavior: .single)
}

/// Bytes of a repeating pattern, so a shifted or dropped byte shows.
func pattern(_ count: Int, seed: UInt8 = 0) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

struct BodyBroke: Error {}
#endif

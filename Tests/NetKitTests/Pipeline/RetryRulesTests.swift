import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit
import NetKitTesting

@Suite("Retries that respect the server and the method")
struct RetryRulesTests {
    struct Create: NetworkRequest {
        typealias Response = User
        var key: String?
        var optIn = false
        var path: String { "/users" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: ["name": "ann"]) }
        var headers: [String: String]? { key.map { ["Idempotency-Key": $0] } }
        var isIdempotent: Bool { optIn }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.2) }
    }

    struct Decoded: Error, Equatable { let message: String }

    struct Lookup: NetworkRequest {
        typealias Response = User
        var path: String { "/users/1" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 1, backoffMultiplier: 2, maxDelay: 3) }
        var errorDecoder: ((Data) -> (any Error)?)? { { Decoded(message: String(decoding: $0, as: UTF8.self)) } }
    }

    func executor(_ stub: StubTransport, clock: RecordingClock, randomUnit: Double = 0.5) -> RequestExecutor {
        RequestExecutor(transport: stub, clock: clock, randomUnit: { randomUnit })
    }

    @Test("a POST is not retried by default")
    func postNotRetried() async throws {
        let stub = StubTransport(replies: [.status(503), .json(#"{"id":1,"name":"ann"}"#)])
        await #expect(throws: HTTPError.self) {
            try await executor(stub, clock: RecordingClock()).send(Create(), baseURL: stubBase)
        }
        #expect(stub.requestCount == 1)
    }

    @Test("a POST with an Idempotency-Key, or one that declares itself idempotent, is retried")
    func keyedPostRetried() async throws {
        for request in [Create(key: "k-1"), Create(optIn: true)] {
            let stub = StubTransport(replies: [.status(503), .json(#"{"id":1,"name":"ann"}"#)])
            let user = try await executor(stub, clock: RecordingClock()).send(request, baseURL: stubBase)
            #expect(user.id == 1)
            #expect(stub.requestCount == 2)
            #expect(stub.requests.map(\.body) == Array(repeating: Data(#"{"name":"ann"}"#.utf8), count: 2))
        }
    }

    @Test("a 503 decoded into the caller's own error type is still a 503, and retried")
    func decodedStatusRetried() async throws {
        let stub = StubTransport(replies: [
            .data(Data("busy".utf8), status: 503), .data(Data("gone".utf8), status: 404),
        ])
        await #expect(throws: Decoded(message: "gone")) {
            try await executor(stub, clock: RecordingClock()).send(Lookup(), baseURL: stubBase)
        }
        #expect(stub.requestCount == 2, "the 503 was retried, the 404 was not")
    }

    @Test("the engine's waits spread above the growing backoff up to the cap, on the injected clock")
    func jitteredWaits() async throws {
        for (unit, expected) in [(0.0, [1.0, 2.0, 3.0]), (0.5, [1.25, 2.5, 3.0]), (0.999, [1.4995, 2.999, 3.0])] {
            let clock = RecordingClock()
            let stub = StubTransport { _, _ in .status(502) }
            await #expect(throws: Decoded(message: "")) {
                try await executor(stub, clock: clock, randomUnit: unit).send(Lookup(), baseURL: stubBase)
            }
            #expect(stub.requestCount == 4)
            let waits = clock.recorded.map { Double($0.components.attoseconds) / 1e18 + Double($0.components.seconds) }
            #expect(waits.count == 3)
            for (wait, bound) in zip(waits, expected) { #expect(abs(wait - bound) < 0.01, "\(waits) vs \(expected)") }
        }
    }

    @Test("RetryPolicy(maxRetryCount: 2, delay: 0.5) waits at least 0.5 s before each retry, whatever the draw")
    func delayIsTheLeastWait() async throws {
        struct Flaky: NetworkRequest {
            typealias Response = User
            var path: String { "/users/1" }
            var method: HTTPMethod { .get }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.5) }
        }
        /// Time stands still, so each recorded wait is exactly the one asked for.
        final class StillClock: Clock, Sendable {
            let now = ContinuousClock.now
            let waits = Lock<[Duration]>([])
            var minimumResolution: Duration { .nanoseconds(1) }
            func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
                waits.withLock { $0.append(deadline - now) }
            }
        }
        for unit in [0.0, 0.001, 0.25, 0.5, 0.75, 0.999_999] {
            let clock = StillClock()
            let stub = StubTransport { _, _ in .status(503) }
            let executor = RequestExecutor(transport: stub, clock: clock, randomUnit: { unit })
            await #expect(throws: HTTPError.self) { try await executor.send(Flaky(), baseURL: stubBase) }
            #expect(stub.requestCount == 3)
            let waits = clock.waits.withLock { $0 }
            #expect(waits.count == 2)
            for wait in waits { #expect(wait >= .milliseconds(500), "randomUnit \(unit): \(waits)") }
            #expect(waits.reduce(.zero, +) >= .seconds(1), "the reference's two retries take at least 1 s")
        }
    }

    @Test("Retry-After in seconds and as an HTTP date, from a real server, decides the wait")
    func retryAfterOverLoopback() async throws {
        // The date is made when the 429 is answered, ten seconds ahead: the wait is that date less the time the
        // answer takes to reach the client and the fraction of a second HTTP dates drop, however late a busy
        // machine runs the test.
        @Sendable func httpDate() -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: Date().addingTimeInterval(10))
        }
        let count = Lock(0)
        let server = try LoopbackServer { _ in
            switch count.withLock({
                $0 += 1
                return $0
            }) {
            case 1: LoopbackResponse(status: 503, headers: [(name: "Retry-After", value: "1")])
            case 2: LoopbackResponse(status: 429, headers: [(name: "Retry-After", value: httpDate())])
            default: .json(#"{"id":1,"name":"ann"}"#)
            }
        }
        defer { server.stop() }
        let clock = RecordingClock()
        let executor = RequestExecutor(transport: URLSessionTransport(), clock: clock, randomUnit: { 0 })
        let response = try await onDedicatedExecutor {
            try await executor.response(for: Lookup(), baseURL: server.baseURL)
        }
        #expect(response.value.id == 1)
        let waits = clock.recorded.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        #expect(waits.count == 2)
        #expect(abs(waits[0] - 1) < 0.05)
        #expect(waits[1] > 5 && waits[1] <= 10.05, "the HTTP date, about ten seconds ahead, to the second: \(waits[1])")
        #expect(response.metrics.retryWaits.count == 2)
    }

    @Test("a server that answers 503 with Retry-After: 0 every time gets maxRetryCount + 1 requests, delay apart")
    func retryAfterZeroBounded() async throws {
        struct Busy: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/busy" }
            var method: HTTPMethod { .get }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 0.25, jitter: .none) }
        }
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 503, headers: [(name: "Retry-After", value: "0")])
        }
        defer { server.stop() }
        let clock = VirtualClock()
        let executor = RequestExecutor(transport: URLSessionTransport(), clock: clock, randomUnit: { 0 })
        let error = await #expect(throws: HTTPError.self) {
            try await onDedicatedExecutor { try await executor.send(Busy(), baseURL: server.baseURL) }
        }
        #expect(error?.statusCode == 503)
        #expect(server.requestCount == 4)
        #expect(clock.waits == Array(repeating: .milliseconds(250), count: 3))
    }

    @Test("a one-shot stream body is never re-sent")
    func streamNotResent() async throws {
        struct Upload: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/upload" }
            var method: HTTPMethod { .put }
            var body: RequestBody? {
                RequestBody(stream: InputStream(data: Data("abc".utf8)), contentType: "text/plain")
            }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 0) }
        }
        let stub = StubTransport(replies: [.status(503), .status(204)])
        await #expect(throws: HTTPError.self) {
            try await executor(stub, clock: RecordingClock()).send(Upload(), baseURL: stubBase)
        }
        #expect(stub.requestCount == 1)
    }
}

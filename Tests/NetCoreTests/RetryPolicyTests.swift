import Foundation
import Testing
import NetCore

@Suite("Retry policy")
struct RetryPolicyTests {
    struct Business: NonRetriableError {}
    struct Unknown: Error {}
    /// Another library's error that says which transport failure it is.
    struct Convertible: TransportErrorConvertible {
        let kind: TransportError.Kind
        var transportError: TransportError { TransportError(kind, host: "x.test") }
    }

    @Test("the default predicate retries transient failures only")
    func defaultPredicate() {
        let retried: [any Error] = [
            TransportError(.timedOut), TransportError(.connectionLost), TransportError(.cannotConnect),
            TransportError(.connectionReset), TransportError(.cannotFindHost), TransportError(.notConnected),
            TransportError(.badResponse), Convertible(kind: .timedOut),
            HTTPError(statusCode: 503, data: Data(), headers: [:]),
            HTTPError(statusCode: 429, data: Data(), headers: [:]),
            HTTPError(statusCode: 408, data: Data(), headers: [:]),
            HTTPError(statusCode: 502, data: Data(), headers: [:]),
        ]
        let refused: [any Error] = [
            NetworkError.unauthorized, NetworkError.invalidURL, TransportError(.tlsFailure), TransportError(.cancelled),
            TransportError(.tooManyRedirects), TransportError(.unsupportedURL), TransportError(.other),
            Convertible(kind: .tlsFailure),
            CancellationError(), Business(), Unknown(), HTTPError(statusCode: 404, data: Data(), headers: [:]),
            HTTPError(statusCode: 400, data: Data(), headers: [:]),
            HTTPError(statusCode: 501, data: Data(), headers: [:]),
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "")),
        ]
        for error in retried { #expect(RetryPolicy.isTransient(error), "\(error)") }
        for error in refused { #expect(!RetryPolicy.isTransient(error), "\(error)") }
    }

    @Test("jitter spreads each wait above the backoff, which grows by the multiplier up to the cap")
    func jitterBounds() {
        let policy = RetryPolicy(maxRetryCount: 4, delay: 1, backoffMultiplier: 3, maxDelay: 5, jitter: .full)
        let error = TransportError(.timedOut)
        let backoffs: [TimeInterval] = [1, 3, 9, 27]
        for (index, backoff) in backoffs.enumerated() {
            #expect(policy.delay(beforeRetry: index + 1, after: error, randomUnit: 0) == min(5, backoff))
            #expect(policy.delay(beforeRetry: index + 1, after: error, randomUnit: 0.5) == min(5, backoff * 1.5))
            let highest = policy.delay(beforeRetry: index + 1, after: error, randomUnit: 0.999_999) ?? .infinity
            #expect(highest <= min(5, backoff * 2) && highest >= min(5, backoff * 1.999))
        }
        // Drawn with the real random source, every wait stays between the backoff and the cap.
        for _ in 0..<1000 {
            let wait = policy.delay(beforeRetry: 2, after: error) ?? -1
            #expect(wait >= 3 && wait <= 5)
        }
        #expect(policy.delay(beforeRetry: 5, after: error) == nil)
        #expect(RetryPolicy().delay(beforeRetry: 1, after: error) == nil)
        let steady = RetryPolicy(maxRetryCount: 2, delay: 2, jitter: .none)
        #expect(steady.delay(beforeRetry: 2, after: error, randomUnit: 0.9) == 4)
        // The default spreads up to half the backoff above it.
        let standard = RetryPolicy(maxRetryCount: 1, delay: 2)
        #expect(standard.jitter == .proportional(0.5))
        #expect(standard.delay(beforeRetry: 1, after: error, randomUnit: 0.5) == 2.5)
    }

    @Test("delay is the least wait before every retry, whatever the random draw (EKNetwork's promise)")
    func delayIsTheLeastWait() {
        let error = TransportError(.connectionLost)
        let units = (0..<1000).map { Double($0) / 1000 } + [0.999_999_999, 1, -1, 2]
        let policies = [
            RetryPolicy(maxRetryCount: 2, delay: 0.5),
            RetryPolicy(maxRetryCount: 2, delay: 0.5, jitter: .full),
            RetryPolicy(maxRetryCount: 2, delay: 0.5, jitter: .proportional(-3)),
            RetryPolicy(maxRetryCount: 2, delay: 0.5, maxDelay: 0.1),
            RetryPolicy(maxRetryCount: 2, delay: 0.5, backoffMultiplier: 0.1),
            RetryPolicy(maxRetryCount: 2, delay: 0.5) { _ in true },
        ]
        for policy in policies {
            for retry in 1...2 {
                for unit in units {
                    let wait = policy.delay(beforeRetry: retry, after: error, randomUnit: unit) ?? -1
                    #expect(wait >= 0.5, "retry \(retry), unit \(unit): \(wait)")
                }
            }
        }
        // A cap below the delay keeps every wait at the delay.
        #expect(
            RetryPolicy(maxRetryCount: 2, delay: 0.5, maxDelay: 0.1).delay(
                beforeRetry: 2, after: error, randomUnit: 0.9) == 0.5)
    }

    @Test(
        "Retry-After in seconds or as an HTTP date replaces the backoff, never below delay; too long ends the retries")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let policy = RetryPolicy(maxRetryCount: 3, delay: 0.1, maxRetryAfter: 60, jitter: .none)
        func error(_ value: String) -> HTTPError {
            HTTPError(statusCode: 503, data: Data(), headers: ["retry-after": value])
        }
        #expect(policy.delay(beforeRetry: 1, after: error("7"), now: now) == 7)
        #expect(policy.delay(beforeRetry: 1, after: error("Tue, 14 Nov 2023 22:13:40 GMT"), now: now) == 20)
        #expect(
            policy.delay(beforeRetry: 1, after: error("Tue, 14 Nov 2023 22:00:00 GMT"), now: now) == 0.1,
            "a date in the past asks for no wait: the policy's delay still holds")
        #expect(policy.delay(beforeRetry: 1, after: error("3600"), now: now) == nil)
        #expect(policy.delay(beforeRetry: 1, after: error("soon"), now: now) == 0.1)
    }

    @Test("Retry-After: 0 on every attempt: each retry still waits delay, and maxRetryCount still ends them")
    func retryAfterZeroFloor() {
        let policy = RetryPolicy(maxRetryCount: 2, delay: 0.5, jitter: .none)
        let busy = HTTPError(statusCode: 503, data: Data(), headers: ["retry-after": "0"])
        #expect(policy.delay(beforeRetry: 1, after: busy, randomUnit: 0) == 0.5)
        #expect(policy.delay(beforeRetry: 2, after: busy, randomUnit: 0) == 0.5)
        #expect(policy.delay(beforeRetry: 3, after: busy, randomUnit: 0) == nil)
        // A Retry-After longer than delay is honoured, even when the backoff would be longer still.
        let later = HTTPError(statusCode: 503, data: Data(), headers: ["retry-after": "2"])
        let steep = RetryPolicy(maxRetryCount: 5, delay: 1, backoffMultiplier: 4, jitter: .none)
        #expect(steep.delay(beforeRetry: 4, after: later, randomUnit: 0) == 2)
    }

    @Test("a failed response is judged by its status, whatever error the errorDecoder made of it")
    func judgedByStatus() {
        struct Decoded: Error {}
        let policy = RetryPolicy(maxRetryCount: 1, delay: 0)
        func head(_ status: Int, _ headers: [(name: String, value: String)] = []) -> HTTPResponseHead {
            HTTPResponseHead(statusCode: status, headerFields: try! HTTPHeaderFields(headers))
        }
        let unavailable = head(503)
        let unavailableLater = head(503, [("Retry-After", "2")])
        let missing = head(404)
        #expect(policy.delay(beforeRetry: 1, after: Decoded(), response: unavailable) == 0)
        #expect(policy.delay(beforeRetry: 1, after: Decoded(), response: unavailableLater) == 2)
        #expect(policy.delay(beforeRetry: 1, after: Decoded(), response: missing) == nil)
        #expect(
            policy.delay(beforeRetry: 1, after: Business(), response: unavailable) == nil,
            "NonRetriableError is never retried")
        // A predicate of your own sees your error.
        let own = RetryPolicy(maxRetryCount: 1, delay: 0) { $0 is Decoded }
        #expect(own.delay(beforeRetry: 1, after: Decoded(), response: missing) == 0)
    }

    @Test("idempotent methods may be repeated; POST, PATCH and CONNECT only when opted in or keyed")
    func repeatableMethods() {
        for method in [HTTPRequestMethod.get, .head, .put, .delete, .options, .trace] {
            #expect(
                RetryPolicy.allowsRepeating(method: method, declaredIdempotent: false, hasIdempotencyKey: false),
                "\(method)")
        }
        for method in [HTTPRequestMethod.post, HTTPRequestMethod(rawValue: "PROPFIND")!, .patch, .connect] {
            #expect(
                !RetryPolicy.allowsRepeating(method: method, declaredIdempotent: false, hasIdempotencyKey: false),
                "\(method)")
            #expect(RetryPolicy.allowsRepeating(method: method, declaredIdempotent: true, hasIdempotencyKey: false))
            #expect(RetryPolicy.allowsRepeating(method: method, declaredIdempotent: false, hasIdempotencyKey: true))
        }
    }

    @Test("a custom predicate decides", arguments: [true, false])
    func customPredicate(answer: Bool) {
        let policy = RetryPolicy(maxRetryCount: 1, delay: 0) { _ in answer }
        #expect((policy.delay(beforeRetry: 1, after: NetworkError.unauthorized) != nil) == answer)
    }

    @Test(
        "Retry-After parsing",
        arguments: [
            ("120", 120.0), (" 5 ", 5.0), ("Sun, 06 Nov 1994 08:49:37 GMT", 0.0),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 0.0),
            ("Sun Nov  6 08:49:37 1994", 0.0),
        ] as [(String, Double)])
    func parsing(value: String, expected: Double) {
        #expect(RetryAfter.seconds(from: value, now: Date()) == expected)
    }

    @Test("malformed Retry-After values are ignored", arguments: ["", "-1", "1.5", "later"])
    func malformed(value: String) {
        #expect(RetryAfter.seconds(from: value, now: Date()) == nil)
    }
}

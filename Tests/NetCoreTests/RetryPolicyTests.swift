import Foundation
import Testing
import NetCore

@Suite("Retry policy")
struct RetryPolicyTests {
    struct Business: NonRetriableError {}
    struct Unknown: Error {}

    @Test("the default predicate retries transient failures only")
    func defaultPredicate() {
        let retried: [any Error] = [
            URLError(.timedOut), URLError(.networkConnectionLost), URLError(.cannotConnectToHost),
            HTTPError(statusCode: 503, data: Data(), headers: [:]), HTTPError(statusCode: 429, data: Data(), headers: [:]),
            HTTPError(statusCode: 408, data: Data(), headers: [:]), HTTPError(statusCode: 502, data: Data(), headers: [:]),
        ]
        let refused: [any Error] = [
            NetworkError.unauthorized, NetworkError.invalidURL, URLError(.userAuthenticationRequired), URLError(.cancelled),
            CancellationError(), Business(), Unknown(), HTTPError(statusCode: 404, data: Data(), headers: [:]),
            HTTPError(statusCode: 400, data: Data(), headers: [:]), HTTPError(statusCode: 501, data: Data(), headers: [:]),
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "")),
        ]
        for error in retried { #expect(RetryPolicy.isTransient(error), "\(error)") }
        for error in refused { #expect(!RetryPolicy.isTransient(error), "\(error)") }
    }

    @Test("waits grow by the multiplier up to the cap, and stop after maxRetryCount")
    func backoff() {
        let policy = RetryPolicy(maxRetryCount: 4, delay: 1, backoffMultiplier: 3, maxDelay: 5)
        let error = URLError(.timedOut)
        #expect(policy.delay(beforeRetry: 1, after: error) == 1)
        #expect(policy.delay(beforeRetry: 2, after: error) == 3)
        #expect(policy.delay(beforeRetry: 3, after: error) == 5)
        #expect(policy.delay(beforeRetry: 4, after: error) == 5)
        #expect(policy.delay(beforeRetry: 5, after: error) == nil)
        #expect(RetryPolicy().delay(beforeRetry: 1, after: error) == nil)
    }

    @Test("Retry-After in seconds or as an HTTP date lengthens the wait; too long ends the retries")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let policy = RetryPolicy(maxRetryCount: 3, delay: 0.1, maxRetryAfter: 60)
        func error(_ value: String) -> HTTPError { HTTPError(statusCode: 503, data: Data(), headers: ["retry-after": value]) }
        #expect(policy.delay(beforeRetry: 1, after: error("7"), now: now) == 7)
        #expect(policy.delay(beforeRetry: 1, after: error("Tue, 14 Nov 2023 22:13:40 GMT"), now: now) == 20)
        #expect(policy.delay(beforeRetry: 1, after: error("Tue, 14 Nov 2023 22:00:00 GMT"), now: now) == 0.1)
        #expect(policy.delay(beforeRetry: 1, after: error("3600"), now: now) == nil)
        #expect(policy.delay(beforeRetry: 1, after: error("soon"), now: now) == 0.1)
    }

    @Test("a custom predicate decides", arguments: [true, false])
    func customPredicate(answer: Bool) {
        let policy = RetryPolicy(maxRetryCount: 1, delay: 0) { _ in answer }
        #expect((policy.delay(beforeRetry: 1, after: NetworkError.unauthorized) != nil) == answer)
    }

    @Test("Retry-After parsing", arguments: [
        ("120", 120.0), (" 5 ", 5.0), ("Sun, 06 Nov 1994 08:49:37 GMT", 0.0), ("Sunday, 06-Nov-94 08:49:37 GMT", 0.0),
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

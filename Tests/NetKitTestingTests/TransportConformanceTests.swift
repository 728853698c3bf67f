import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The suite itself: a transport that breaks a promise fails the check for that promise, with a message that
/// says what was seen.
@Suite("Transport conformance suite")
struct TransportConformanceTests {
    /// Reads the whole body before returning the head: no streaming.
    struct BufferingTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            let data = try await response.body.collect(upTo: 64 << 20)
            return TransportResponse(head: response.head, body: ResponseBody(data: data))
        }
    }

    /// Ends every body cleanly, whatever happened to the connection.
    struct ForgivingTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            let body = response.body
            let forgiving = AsyncThrowingStream<Data, any Error> { continuation in
                let task = Task {
                    do { for try await chunk in body { continuation.yield(chunk) } } catch {}
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            return TransportResponse(head: response.head, body: ResponseBody(forgiving))
        }
    }

    /// Never answers, and ignores cancellation.
    struct HangingTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            throw URLError(.unknown)
        }
    }

    func check(_ name: String) throws -> TransportConformanceCheck {
        try #require(TransportConformance.checks.first { $0.name == name })
    }

    @Test("the checks have distinct names, and the issue's list is covered")
    func names() {
        let names = TransportConformance.checks.map(\.name)
        #expect(Set(names).count == names.count)
        for name in ["methods", "request headers", "response headers", "request bodies", "status codes",
                     "incremental streaming", "a body dropped mid-way", "a body shorter than its Content-Length",
                     "cancellation before the head", "cancellation during the body", "large bodies", "progress", "redirects"] {
            #expect(names.contains(name), "missing check \(name)")
        }
    }

    @Test("a transport that buffers the body fails the streaming checks")
    func buffering() async throws {
        for name in ["head before body", "incremental streaming"] {
            let failure = await #expect(throws: TransportConformanceFailure.self) {
                try await check(name).run(against: BufferingTransport(), options: .init(timeLimit: .seconds(25)))
            }
            #expect(failure?.check == name)
        }
    }

    @Test("a transport that ends broken bodies cleanly fails the broken-body checks, naming what it saw")
    func forgiving() async throws {
        for name in ["a body dropped mid-way", "a body shorter than its Content-Length"] {
            let failure = await #expect(throws: TransportConformanceFailure.self) {
                try await check(name).run(against: ForgivingTransport())
            }
            #expect(failure?.message.contains("ended cleanly") == true, "\(failure?.description ?? "")")
        }
    }

    @Test("a hanging transport fails within the time limit instead of hanging the run")
    func hanging() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        // A bare timer for the same limit: what "on time" means on this machine now, however busy the other
        // tests keep its cores.
        async let timer: Duration = {
            try await Task.sleep(until: start + .milliseconds(300), clock: clock)
            return clock.now - start
        }()
        let failure = await #expect(throws: TransportConformanceFailure.self) {
            try await check("methods").run(against: HangingTransport(), options: .init(timeLimit: .milliseconds(300)))
        }
        let elapsed = clock.now - start
        #expect(failure?.message.contains("did not finish") == true)
        #expect(elapsed - (try await timer) < .seconds(2), "gave up after \(elapsed)")
    }

    @Test("verify reports every failing check at once")
    func verifyAggregates() async throws {
        let failures = await #expect(throws: TransportConformanceFailures.self) {
            try await TransportConformance.verify(ForgivingTransport())
        }
        let names = Set(failures?.failures.map(\.check) ?? [])
        #expect(names == ["a body dropped mid-way", "a body shorter than its Content-Length"])
    }
}

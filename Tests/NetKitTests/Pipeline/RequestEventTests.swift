import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Request events: every phase, in the grammar's order, over the stub transport")
struct RequestEventTests {
    /// The one request's event names, after checking every recorded request against the grammar.
    func names(_ recorder: EventRecorder) -> [String] {
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
        #expect(recorder.requestNumbers.count == 1)
        return recorder.requestNumbers.first.map(recorder.kindNames(of:)) ?? []
    }

    func executor(_ stub: StubTransport, _ recorder: EventRecorder) -> RequestExecutor {
        RequestExecutor(
            transport: stub,
            configuration: RequestExecutor.Configuration(plugins: [recorder], clock: RecordingClock()))
    }

    @Test("a request that succeeds: call, one attempt, the exchange's phases, in order")
    func success() async throws {
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        _ = try await executor(stub, recorder).send(GetUser(), baseURL: stubBase)
        #expect(
            names(recorder) == [
                "call_start", "attempt_start", "request_start", "request_head_sent", "response_head",
                "response_body_end", "attempt_end", "call_end",
            ])
        let events = recorder.events
        #expect(
            events.first?.kind
                == .callStart(method: .get, origin: HTTPOrigin(scheme: "https", host: "api.test", port: nil)))
        #expect(events.contains { $0.kind == .responseBodyEnd(bytes: 21) })
        #expect(events.last?.kind == .callEnd(status: 200))
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "times are monotonic")
        #expect(Set(events.map(\.requestNumber)).count == 1)
    }

    @Test("a retried 503: the first attempt ends with its status, the retry is scheduled with its wait and reason")
    func retried() async throws {
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [.status(503), .json(#"{"id":1,"name":"ann"}"#)])
        _ = try await executor(stub, recorder).send(GetUser(retries: 1), baseURL: stubBase)
        #expect(
            names(recorder) == [
                "call_start", "attempt_start", "request_start", "request_head_sent", "response_head",
                "response_body_end", "attempt_end", "retry_scheduled", "attempt_start", "request_start",
                "request_head_sent", "response_head", "response_body_end", "attempt_end", "call_end",
            ])
        let kinds = recorder.events.map(\.kind)
        #expect(kinds.contains(.attemptEnd(attempt: 1, status: 503)))
        #expect(kinds.contains(.attemptStart(attempt: 2, reason: .retry(wait: .zero))))
        #expect(
            kinds.contains { kind in
                if case .retryScheduled(_, let reason) = kind { reason.contains("503") } else { false }
            })
    }

    @Test("a failure without a response: the attempt fails, then the call, each with the reason")
    func transportFailure() async throws {
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [.failure(TransportError(.connectionLost))])
        await #expect(throws: TransportError.self) {
            try await executor(stub, recorder).send(GetUser(), baseURL: stubBase)
        }
        #expect(names(recorder) == ["call_start", "attempt_start", "request_start", "attempt_failed", "call_failed"])
        guard case .callFailed(let reason) = recorder.events.last?.kind else {
            Issue.record("the last event is not call_failed")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test("a cancelled request: its attempt fails, then cancelled, then call_failed")
    func cancelled() async throws {
        let recorder = EventRecorder()
        let gate = StubGate()
        let stub = StubTransport(replies: [StubTransport.Reply.json(#"{"id":1,"name":"ann"}"#).held(by: gate)])
        let executor = executor(stub, recorder)
        let call = Task { try await executor.send(GetUser(), baseURL: stubBase) }
        await gate.waitForArrivals(1)
        call.cancel()
        _ = await call.result
        #expect(
            names(recorder) == [
                "call_start", "attempt_start", "request_start", "attempt_failed", "cancelled", "call_failed",
            ])
    }

    @Test("a followed redirect: one attempt per hop, the redirect between them names the next origin")
    func redirect() async throws {
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [
            .status(302, headers: ["Location": "https://api.test/v1/users/2"]), .json(#"{"id":2,"name":"bo"}"#),
        ])
        _ = try await executor(stub, recorder).send(GetUser(), baseURL: stubBase)
        let names = names(recorder)
        #expect(names.filter { $0 == "attempt_start" }.count == 2)
        #expect(
            recorder.events.map(\.kind).contains(
                .redirect(status: 302, origin: HTTPOrigin(scheme: "https", host: "api.test", port: nil))))
        #expect(names.firstIndex(of: "redirect")! > names.firstIndex(of: "attempt_end")!)
    }

    @Test("a request held in the line is queued, then dequeued when the line opens")
    func queued() async throws {
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let (waiting, counts) = AsyncStream.makeStream(of: Int.self)
        let line = HoldTheLine(onWaitingCountChange: { counts.yield($0) })
        var configuration = RequestExecutor.Configuration(plugins: [recorder], line: line)
        configuration.clock = RecordingClock()
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        line.hold()
        let call = Task { try await executor.send(GetUser(), baseURL: stubBase) }
        for await count in waiting where count == 1 { break }
        line.release()
        _ = try await call.value
        #expect(names(recorder).prefix(3) == ["call_start", "queued", "dequeued"])
    }

    @Test("a cached answer: the attempt says hit and has a head, and nothing reaches the transport")
    func cacheHit() async throws {
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#, headers: ["Cache-Control": "max-age=600"])])
        var configuration = RequestExecutor.Configuration(plugins: [recorder], clock: RecordingClock())
        configuration.responseCache = ResponseCache(maximumBytes: 1 << 20)
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        _ = try await executor.send(GetUser(), baseURL: stubBase)
        _ = try await executor.send(GetUser(), baseURL: stubBase)
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
        let second = recorder.requestNumbers[1]
        #expect(
            recorder.kindNames(of: second) == [
                "call_start", "attempt_start", "cache_hit", "response_head", "attempt_end", "call_end",
            ])
        #expect(recorder.kindNames(of: recorder.requestNumbers[0]).contains("cache_miss"))
        #expect(stub.requestCount == 1)
    }

    @Test("a 401 renews the credential between two attempts")
    func renewal() async throws {
        let recorder = EventRecorder()
        let refresher = CountingRefresher()
        let stub = StubTransport { _, index in index == 0 ? .status(401) : .json(#"{"id":1,"name":"ann"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub, plugins: [recorder])
        manager.tokenRefresher = refresher
        _ = try await manager.send(GetUser(), accessToken: { refresher.token })
        let names = names(recorder)
        let start = try #require(names.firstIndex(of: "credential_renewal_start"))
        #expect(names[start + 1] == "credential_renewal_end")
        #expect(names.filter { $0 == "attempt_start" }.count == 2)
        #expect(recorder.events.map(\.kind).contains(.credentialRenewalEnd(renewed: true)))
    }

    @Test("a timeout ends the call once, after the attempt it cut")
    func timeout() async throws {
        let recorder = EventRecorder()
        let gate = StubGate()
        let stub = StubTransport(replies: [StubTransport.Reply.json("{}").held(by: gate)])
        var configuration = RequestExecutor.Configuration(plugins: [recorder], defaultTimeout: .milliseconds(50))
        configuration.clock = RecordingClock()
        let executor = RequestExecutor(transport: stub, configuration: configuration)
        await #expect(throws: (any Error).self) { try await executor.send(GetUser(), baseURL: stubBase) }
        #expect(names(recorder) == ["call_start", "attempt_start", "request_start", "attempt_failed", "call_failed"])
        gate.open()
    }

    @Test("a plugin that is not an observer is told nothing, and an observer among the request's own plugins is")
    func requestOwnObserver() async throws {
        struct Observed: NetworkRequest {
            typealias Response = User
            let recorder: EventRecorder
            var path: String { "/users/1" }
            var method: HTTPMethod { .get }
            var plugins: [any Plugin] { [recorder] }
        }
        let recorder = EventRecorder()
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#), .json(#"{"id":1,"name":"ann"}"#)])
        let executor = RequestExecutor(transport: stub)
        _ = try await executor.send(GetUser(), baseURL: stubBase)
        #expect(recorder.events.isEmpty)
        _ = try await executor.send(Observed(recorder: recorder), baseURL: stubBase)
        #expect(names(recorder).first == "call_start")
    }
}

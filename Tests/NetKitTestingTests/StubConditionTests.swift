import Foundation
import NetCore
import NetKitTesting
import NetKitLock
import Testing

/// Stubs that match conditions, through the engine (`RequestExecutor`, what `NetworkManager` runs on).
@Suite("Stub conditions")
struct StubConditionTests {
    struct Item: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    struct Call: Endpoint {
        typealias Response = Item
        var path = "/v1/items/1"
        var method: HTTPMethod = .get
        var headers: [String: String]?
        var queryParameters: [String: String]?
    }

    struct Plain: Endpoint {
        typealias Response = EmptyResponse
        var path = "/v1/items/1"
        var method: HTTPMethod = .delete
    }

    let base = URL(string: "https://api.test")!

    func send<E: Endpoint>(_ request: E, _ stub: StubTransport) async throws -> E.Response {
        try await RequestExecutor(transport: stub).send(request, baseURL: base)
    }

    @Test("method, path, host, query and header conditions must all hold; the first matching stub answers")
    func combined() async throws {
        let stub = StubTransport()
        stub.stub(
            .method(.get), .path("/v1/items/1"), .query("lang", "en"), .header("X-Trace", "1"),
            reply: .json(#"{"id":1,"name":"english"}"#))
        stub.stub(
            .method(.get), .host("API.test"), .pathPrefix("/v1/items"),
            reply: try .json(encoding: Item(id: 1, name: "any")))
        stub.stub(.method(.get), reply: .json(#"{"id":0,"name":"never"}"#))
        #expect(
            try await send(Call(headers: ["X-Trace": "1"], queryParameters: ["lang": "en"]), stub).name == "english")
        #expect(try await send(Call(headers: ["X-Trace": "2"], queryParameters: ["lang": "en"]), stub).name == "any")
        #expect(try await send(Call(queryParameters: ["lang": "fr"]), stub).name == "any")
        #expect(try await send(Call(path: "/v2/other"), stub).name == "never")
        #expect(stub.matchCounts == [1, 2, 1])
        #expect(stub.unmatchedRequests.isEmpty)
    }

    @Test("query and header conditions without a value ask for presence; query values are decoded")
    func presence() async throws {
        let stub = StubTransport()
        stub.stub(.query("q", "a b&c"), reply: .json(#"{"id":1,"name":"decoded"}"#))
        stub.stub(.query("page"), .header("authorization"), reply: .json(#"{"id":2,"name":"present"}"#))
        #expect(try await send(Call(queryParameters: ["q": "a b&c"]), stub).name == "decoded")
        #expect(
            try await send(Call(headers: ["Authorization": "Bearer t"], queryParameters: ["page": "9"]), stub).name
                == "present")
        await #expect(throws: StubTransport.NoMatchingStub.self) {
            try await send(Call(queryParameters: ["page": "9"]), stub)
        }
    }

    @Test("a regular expression on the URL, and a closure of the test's own")
    func regexAndClosure() async throws {
        let stub = StubTransport()
        stub.stub(.url(matching: #/^https://api\.test/v1/items/\d+$/#), reply: .json(#"{"id":5,"name":"regex"}"#))
        stub.stub(try .url(matchingPattern: "items/[a-z]+"), reply: .json(#"{"id":6,"name":"pattern"}"#))
        stub.stub(.matching("a body of two bytes") { $0.body.count == 2 }, reply: .status(204))
        #expect(try await send(Call(path: "/v1/items/42"), stub).name == "regex")
        #expect(try await send(Call(path: "/v1/items/abc"), stub).name == "pattern")
        #expect(throws: (any Error).self) { try StubCondition.url(matchingPattern: "(") }
        struct Upload: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "/v1/upload" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { RequestBody(data: Data("hi".utf8), contentType: "text/plain") }
        }
        _ = try await send(Upload(), stub)
        #expect(StubCondition.method(.get).description == "method GET")
    }

    @Test("a request no stub matched is reported and fails with an error naming its method and redacted URL")
    func unmatched() async throws {
        let stub = StubTransport()
        stub.stub(.method(.post), reply: .status(201))
        let error = await #expect(throws: StubTransport.NoMatchingStub.self) {
            try await send(Call(queryParameters: ["token": "s3cret"]), stub)
        }
        #expect(error?.method == .get)
        #expect(error?.url == "https://api.test/v1/items/1?token=…")
        #expect(error.map { "\($0)" } == "No stub matched GET https://api.test/v1/items/1?token=… (1 stub registered).")
        #expect(!(error.map { "\($0)" } ?? "").contains("s3cret"))
        #expect(stub.unmatchedRequests.map(\.method) == [.get])
        #expect(stub.requestCount == 1)
    }

    @Test("a stub with several replies gives them in order, then the last again; errors are transport errors")
    func sequenceAndErrors() async throws {
        let stub = StubTransport()
        stub.stub(.method(.get), replies: [.failure(.connectionLost), .json(#"{"id":1,"name":"second"}"#)])
        stub.stub(.method(.delete), reply: .failure(.timedOut))
        let error = await #expect(throws: TransportError.self) { try await send(Call(), stub) }
        #expect(error?.kind == .connectionLost)
        #expect(try await send(Call(), stub).name == "second")
        #expect(try await send(Call(), stub).name == "second")
        let timeout = await #expect(throws: TransportError.self) { try await send(Plain(), stub) }
        #expect(timeout?.kind == .timedOut)
    }

    @Test("stubs come before the script a stub was created with; what no stub matches goes to the script")
    func withScript() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":9,"name":"scripted"}"#)])
        stub.stub(.path("/v1/items/2"), reply: .json(#"{"id":2,"name":"stubbed"}"#))
        #expect(try await send(Call(path: "/v1/items/2"), stub).name == "stubbed")
        #expect(try await send(Call(), stub).name == "scripted")
        await #expect(throws: StubTransport.ScriptExhausted(replies: 1)) { try await send(Call(), stub) }
        #expect(stub.unmatchedRequests.isEmpty)
        stub.removeAllStubs()
        #expect(stub.matchCounts.isEmpty)
    }

    @Test("replies carry repeated header fields and text bodies")
    func repliesShape() async throws {
        let stub = StubTransport()
        stub.stub(reply: .text("héllo", status: 203).header("Set-Cookie", "a=1").header("Set-Cookie", "b=2"))
        let head = try HTTPRequestHead(url: base)
        let response = try await stub.send(TransportRequest(head: head))
        #expect(response.statusCode == 203)
        #expect(response.head.headerFields.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(response.head.value(forHeader: "Content-Type") == "text/plain; charset=utf-8")
        #expect(try await response.body.collect(upTo: 100) == Data("héllo".utf8))
    }

    /// Records each wait and returns at once: no test waits on the wall clock.
    final class InstantClock: Clock, Sendable {
        let waits = Lock<[Duration]>([])
        let now = ContinuousClock.now
        var minimumResolution: Duration { .nanoseconds(1) }
        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
            waits.withLock { $0.append(deadline - now) }
        }
    }

    @Test("delays are slept on the stub's clock")
    func delayOnInjectedClock() async throws {
        let clock = InstantClock()
        let stub = StubTransport(clock: clock)
        stub.stub(reply: .json(#"{"id":1,"name":"late"}"#).delayed(by: .seconds(3600)))
        #expect(try await send(Call(), stub).name == "late")
        #expect(clock.waits.withLock { $0 } == [.seconds(3600)])
    }

    @Test("a gate holds replies until the test opens it, and says when requests have arrived")
    func gate() async throws {
        let gate = StubGate()
        let stub = StubTransport()
        stub.stub(reply: .json(#"{"id":1,"name":"held"}"#).held(by: gate))
        let first = Task { try await send(Call(), stub) }
        let second = Task { try await send(Call(), stub) }
        await gate.waitForArrivals(2)
        #expect(gate.arrivals == 2 && !gate.isOpen)
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        gate.open()
        #expect(try await first.value.name == "held")
        #expect(try await send(Call(), stub).name == "held", "an open gate lets later replies pass")
        #expect(gate.arrivals == 3)
    }
}

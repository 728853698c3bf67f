#if OpenAPI
import Foundation
import HTTPTypes
import NetAuth
import NetCore
import NetKitTesting
import NetOpenAPI
import OpenAPIRuntime
import Testing

@Suite("NetKitClientTransport: a generated client's requests on NetKit's road (stub transport)")
struct NetKitClientTransportTests {
    static let base = URL(string: "https://api.test/v2")!

    @Test("the operation's path joins the server URL's, query and repeated fields kept; the response comes back whole")
    func roundTrip() async throws {
        let stub = StubTransport { _, _ in
            var reply = StubTransport.Reply.json(#"{"ok":true}"#, status: 201)
            reply.additionalHeaders = [("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]
            return reply
        }
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: stub))
        let (response, body) = try await transport.send(
            request(.post, "/todos?tag=a&tag=b", [("Accept", "application/json"), ("X-Trace", "1"), ("X-Trace", "2")]),
            body: HTTPBody(#"{"title":"milk"}"#),
            baseURL: Self.base,
            operationID: "createTodo"
        )
        #expect(response.status.code == 201)
        #expect(response.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(String(decoding: try await collect(body), as: UTF8.self) == #"{"ok":true}"#)
        let sent = try #require(stub.requests.first)
        #expect(sent.url?.absoluteString == "https://api.test/v2/todos?tag=a&tag=b")
        #expect(sent.method == .post)
        #expect(sent.head.headerFields.values(for: "X-Trace") == ["1", "2"])
        #expect(String(decoding: sent.body, as: UTF8.self) == #"{"title":"milk"}"#)
    }

    @Test("a PUT through the transport invalidates the engine's stored GET of its URL")
    func putInvalidatesCache() async throws {
        let stub = StubTransport { request, _ in
            request.method == .get ? .json("{}", headers: ["Cache-Control": "max-age=60"]) : .status(204)
        }
        var executor = RequestExecutor(transport: stub)
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        let transport = NetKitClientTransport(executor: executor)
        struct GetTodo: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "/todos/1" }
            var method: HTTPMethod { .get }
        }
        _ = try await executor.send(GetTodo(), baseURL: Self.base)
        _ = try await transport.send(request(.get, "/todos/1"), body: nil, baseURL: Self.base, operationID: "getTodo")
        #expect(executor.responseCache?.count == 1, "the transport's GET is neither answered from the cache nor stored")
        _ = try await transport.send(
            request(.put, "/todos/1"), body: HTTPBody("{}"), baseURL: Self.base, operationID: "updateTodo")
        #expect(executor.responseCache?.count == 0)
        _ = try await executor.send(GetTodo(), baseURL: Self.base)
        #expect(stub.requests.map(\.method) == [.get, .get, .put, .get])
    }

    @Test("plugins see the operation ID in every hook, and didFinish sees a documented 404 as a response")
    func operationIDReachesPlugins() async throws {
        let stub = StubTransport(replies: [.json(#"{"message":"no such todo"}"#, status: 404)])
        let witness = OperationWitness()
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: stub, plugins: [witness]))
        let (response, body) = try await transport.send(
            request(.get, "/todos/9"), body: nil, baseURL: Self.base, operationID: "getTodo")
        #expect(response.status.code == 404)
        #expect(String(decoding: try await collect(body), as: UTF8.self) == #"{"message":"no such todo"}"#)
        #expect(witness.entries == ["getTodo #1", "finish getTodo 404"])
    }

    @Test("a 503 with Retry-After is retried after the server's wait; the client sees the 200")
    func retryAfterHonoured() async throws {
        let stub = StubTransport(replies: [.status(503, headers: ["Retry-After": "3"]), .json("[]")])
        let clock = WaitRecordingClock()
        var transport = NetKitClientTransport(executor: RequestExecutor(transport: stub, clock: clock))
        transport.retryPolicy = RetryPolicy(maxRetryCount: 2, jitter: .none)
        let (response, body) = try await transport.send(
            request(.get, "/report"), body: nil, baseURL: Self.base, operationID: "getReport")
        #expect(response.status.code == 200)
        #expect(try await collect(body) == Data("[]".utf8))
        #expect(stub.requestCount == 2)
        // The clock records the time left until the deadline it was given, a hair under the wait itself.
        #expect(clock.recorded.count == 1)
        #expect((Duration.milliseconds(2_900)...Duration.seconds(3)).contains(clock.recorded.first ?? .zero))
    }

    @Test("retries spent, the last 503 reaches the client with its body rather than an error")
    func lastFailureHandedOver() async throws {
        let stub = StubTransport { _, _ in .data(Data("busy".utf8), status: 503, headers: ["Retry-After": "0"]) }
        var transport = NetKitClientTransport(executor: RequestExecutor(transport: stub, clock: WaitRecordingClock()))
        transport.retryPolicy = RetryPolicy(maxRetryCount: 2, jitter: .none)
        let (response, body) = try await transport.send(
            request(.get, "/report"), body: nil, baseURL: Self.base, operationID: "getReport")
        #expect(response.status.code == 503)
        #expect(try await collect(body) == Data("busy".utf8))
        #expect(stub.requestCount == 3)
    }

    @Test("a POST is retried only when its operation is declared idempotent; its in-memory body is sent again whole")
    func postRetriedOnlyWhenDeclared() async throws {
        let replies: [StubTransport.Reply] = [.status(503, headers: ["Retry-After": "0"]), .json("{}", status: 201)]
        let plain = StubTransport(replies: replies)
        var transport = NetKitClientTransport(executor: RequestExecutor(transport: plain, clock: WaitRecordingClock()))
        transport.retryPolicy = RetryPolicy(maxRetryCount: 2, jitter: .none)
        let (first, _) = try await transport.send(
            request(.post, "/todos"), body: HTTPBody("{}"), baseURL: Self.base, operationID: "createTodo")
        #expect(first.status.code == 503)
        #expect(plain.requestCount == 1)

        let declared = StubTransport(replies: replies)
        transport.executor.transport = declared
        transport.idempotentOperations = ["createTodo"]
        let (second, _) = try await transport.send(
            request(.post, "/todos"), body: HTTPBody(#"{"title":"tea"}"#), baseURL: Self.base,
            operationID: "createTodo")
        #expect(second.status.code == 201)
        #expect(
            declared.requests.map { String(decoding: $0.body, as: UTF8.self) } == [
                #"{"title":"tea"}"#, #"{"title":"tea"}"#,
            ])
    }

    @Test("twenty concurrent calls rejected with 401 share one renewal, then each succeeds with the new token")
    func oneRefreshForManyCalls() async throws {
        let stub = StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Bearer fresh"
                ? .json(#"{"name":"ann"}"#) : .status(401)
        }
        let authenticator = CountingAuthenticator()
        let transport = NetKitClientTransport(
            executor: RequestExecutor(transport: stub),
            credentials: AuthenticatorCredentials(authenticator: authenticator, credential: "stale")
        )
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await transport.send(
                        request(.get, "/me"), body: nil, baseURL: Self.base, operationID: "getProfile"
                    )
                    .0.status.code
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(authenticator.refreshes.value == 1)
    }

    @Test("what cannot be sent is a typed error before anything is sent, and its text hides query values")
    func badInputRefused() async throws {
        let stub = StubTransport(replies: [])
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: stub))
        await #expect(throws: OpenAPITransportError.self) {
            _ = try await transport.send(
                request(.get, "/x"), body: nil, baseURL: URL(string: "https://api.test/v2?key=1")!, operationID: "q")
        }
        let error = await #expect(throws: OpenAPITransportError.self) {
            _ = try await transport.send(
                request(.get, "/a b?api_key=SECRET"), body: nil, baseURL: Self.base, operationID: "q")
        }
        #expect(error.map { "\($0)" }?.contains("SECRET") == false)
        #expect(error.map { "\($0)" }?.contains("/v2/a b") == true)
        #expect(stub.requestCount == 0)
    }

    @Test("a method outside HTTPMethod (QUERY, with a body) reaches the transport as it is spelled")
    func extensionMethod() async throws {
        let stub = StubTransport(replies: [.json("[]")])
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: stub))
        let (response, _) = try await transport.send(
            request(HTTPRequest.Method("QUERY")!, "/items"), body: HTTPBody("{}"), baseURL: Self.base,
            operationID: "query")
        #expect(response.status == .ok)
        #expect(stub.requests.map(\.method.rawValue) == ["QUERY"])
        #expect(stub.requests.first?.body == Data("{}".utf8))
    }
}
#endif

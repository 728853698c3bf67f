import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Built-in plugins")
struct BuiltInPluginTests {
    struct Ping: NetworkRequest {
        typealias Response = StatusCodeResponse
        var plugins: [any Plugin] = []
        var headers: [String: String]? = nil
        var path: String { "/ping" }
        var method: HTTPMethod { .get }
    }

    func send(_ request: Ping, plugins: [any Plugin] = [], replies: [StubTransport.Reply] = [.status(200)]) async throws
        -> StubTransport.RecordedRequest?
    {
        let stub = StubTransport(replies: replies)
        let executor = RequestExecutor(transport: stub, plugins: plugins)
        _ = try await executor.send(request, baseURL: stubBase)
        return stub.requests.first
    }

    @Test("JSON headers are added where the request set none")
    func jsonHeaders() async throws {
        let context = PluginContext(requestNumber: 1, attempt: 0, reason: .initial, isStreaming: false)
        let bare = TransportRequest(head: try HTTPRequestHead(url: stubBase), body: UploadSource(data: Data("{}".utf8)))
        let prepared = try await JSONHeadersPlugin().prepare(bare, context: context)
        #expect(prepared.value(forHeader: "Accept") == "application/json")
        #expect(prepared.value(forHeader: "Content-Type") == "application/json")
        var own = TransportRequest(head: try HTTPRequestHead(url: stubBase))
        try own.setHeader("Accept", "text/csv")
        let kept = try await JSONHeadersPlugin().prepare(own, context: context)
        #expect(kept.value(forHeader: "Accept") == "text/csv")
        #expect(kept.value(forHeader: "Content-Type") == nil, "no body, no Content-Type")
    }

    @Test("status-code validation narrows what passes")
    func statusValidation() async throws {
        let plugin = StatusCodeValidationPlugin(accepting: [200])
        _ = try await send(Ping(plugins: [plugin]))
        let error = await #expect(throws: HTTPError.self) {
            try await send(Ping(plugins: [plugin]), replies: [.status(203)])
        }
        #expect(error?.statusCode == 203)
    }

    @Test("a request ID is added once per request and kept across attempts")
    func requestID() async throws {
        struct Retried: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/x" }
            var method: HTTPMethod { .get }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0) }
        }
        let stub = StubTransport(replies: [.status(502), .status(204)])
        let executor = RequestExecutor(transport: stub, plugins: [RequestIDPlugin(makeIdentifier: { "req-42" })])
        _ = try await executor.send(Retried(), baseURL: stubBase)
        #expect(stub.requests.map { $0.value(forHeader: "X-Request-ID") } == ["req-42", "req-42"])
        let own = try await send(Ping(headers: ["X-Request-ID": "mine"]), plugins: [RequestIDPlugin()])
        #expect(own?.value(forHeader: "X-Request-ID") == "mine")
    }

    @Test("an API key in a header or a query item, Basic and Bearer: NetAuth's plugins")
    func authPlugins() async throws {
        let header = try await send(Ping(), plugins: [TokenPlugin(.header(name: "X-API-Key")) { "k-1" }])
        #expect(header?.value(forHeader: "X-API-Key") == "k-1")
        let query = try await send(Ping(), plugins: [TokenPlugin(.queryItem(name: "api_key")) { "k 2" }])
        #expect(query?.url?.query == "api_key=k%202")
        let basic = try await send(Ping(), plugins: [try BasicAuthenticationPlugin(username: "ann", password: "pw")])
        #expect(basic?.value(forHeader: "Authorization") == "Basic YW5uOnB3")
        let bearer = try await send(Ping(), plugins: [BearerTokenPlugin { "tok" }])
        #expect(bearer?.value(forHeader: "Authorization") == "Bearer tok")
    }
}

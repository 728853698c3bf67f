import Foundation
import Testing
import NetKit
import NetKitTesting

/// `Plugin` is the one way to intercept a request: what the removed `Middleware` chain promised (change every
/// request, see every response, send again, never smuggle CR/LF onto the wire) holds through it, and NetAuth's
/// credential types are plugins.
@Suite("Intercepting requests with plugins")
struct PluginInterceptionTests {
    /// Sets `X-<name>: 1` on every attempt and records when it sees the request and the response.
    struct Tag: Plugin {
        let name: String
        let trail: EventLog
        var priority: PluginPriority = .normal

        func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
            trail.append("→\(name)")
            try request.setHeader("X-\(name)", "1")
        }

        func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
            trail.append("←\(name)")
        }
    }

    /// Asks for a second attempt whatever the first one's status: what a middleware calling `next` twice did.
    struct SendAgainOnce: Plugin {
        func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
            -> PluginVerdict
        {
            context.attempt == 1 ? .retry : .accept
        }
    }

    @Test("plugins run by priority, then in registration order, on send and stream alike; each one's header is sent")
    func order() async throws {
        let trail = EventLog()
        let stub = StubTransport { _, _ in .json(#"{"id":1,"name":"a"}"#) }
        let manager = NetworkManager(
            baseURL: stubBase, transport: stub,
            plugins: [
                Tag(name: "A", trail: trail), Tag(name: "B", trail: trail),
                Tag(name: "C", trail: trail, priority: .high),
            ])
        _ = try await manager.send(GetUser(), accessToken: nil)
        #expect(trail.all == ["→C", "→A", "→B", "←C", "←A", "←B"])
        let streamed = try await manager.stream(GetUser(), accessToken: nil)
        #expect(streamed.statusCode == 200)
        #expect(trail.all.count == 12, "the stream road runs the same plugins: \(trail.all)")
        #expect(stub.requestCount == 2)
        for request in stub.requests {
            for name in ["A", "B", "C"] { #expect(request.value(forHeader: "X-\(name)") == "1") }
        }
    }

    @Test("a plugin may have the request sent again")
    func sendsAgain() async throws {
        let stub = StubTransport(replies: [.status(500), .json(#"{"id":2,"name":"b"}"#)])
        let user = try await NetworkManager(baseURL: stubBase, transport: stub, plugins: [SendAgainOnce()]).send(
            GetUser(), accessToken: nil)
        #expect(user.id == 2)
        #expect(stub.requestCount == 2)
    }

    @Test("no way a plugin changes a request lets CR, LF or NUL through")
    func noSmuggling() throws {
        var request = TransportRequest(head: try HTTPRequestHead(url: stubBase))
        #expect(throws: NetworkError.invalidHeader(name: "X-A")) { try request.setHeader("X-A", "1\r\nX-B: 2") }
        #expect(throws: NetworkError.invalidHeader(name: "X-A")) { try request.addHeader("X-A", "1\nX-B: 2") }
        #expect(throws: NetworkError.invalidHeader(name: "X-A")) {
            try request.head.headerFields.setValue("a\0b", for: "X-A")
        }
        #expect(throws: NetworkError.invalidHeader(name: "X-A")) {
            try request.head.headerFields.addValue("a\rb", for: "X-A")
        }
        #expect(throws: NetworkError.self) {
            try request.head.headerFields.append(HTTPHeaderField(name: "X-A\r\nX-B", value: "1"))
        }
        #expect(throws: NetworkError.invalidURL) { try request.head.setPath("/a\r\nX-B: 2") }
        #expect(throws: NetworkError.invalidURL) { try request.head.setQuery("a=1 HTTP/1.1\r\nX-B: 2") }
        #expect(request.head.headerFields.isEmpty)
        #expect(request.head.path == "/v1")
    }

    @Test("a plugin that writes an invalid field into the head fails the request before anything is sent")
    func invalidFieldFailsRequest() async throws {
        struct Smuggler: Plugin {
            func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
                try request.head.headerFields.setValue("a\r\nX-Admin: yes", for: "X-Note")
            }
        }
        let stub = StubTransport(replies: [.status(204)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub, plugins: [Smuggler()])
        await #expect(throws: NetworkError.invalidHeader(name: "X-Note")) {
            try await manager.send(DeleteUser(), accessToken: nil)
        }
        #expect(stub.requestCount == 0)
    }

    @Test("NetAuth's plugins apply their credential to every attempt, retries included, reading it afresh")
    func authPluginsOnEveryAttempt() async throws {
        let reads = CallCounter()
        let bearer = BearerTokenPlugin { "t-\(reads.next())" }
        let key = TokenPlugin(.queryItem(name: "api_key")) { "k" }
        let stub = StubTransport(replies: [.status(503), .json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub, plugins: [bearer, key])
        _ = try await manager.send(GetUser(retries: 1), accessToken: nil)
        #expect(stub.requests.map(\.bearer) == ["Bearer t-1", "Bearer t-2"])
        #expect(
            stub.requests.map { $0.url?.query } == ["api_key=k", "api_key=k"],
            "the query item is replaced, not repeated")
    }

    @Test("Basic credentials that cannot be sent are refused when the plugin is made")
    func basicCredentialsChecked() {
        #expect(throws: BasicAuthenticationPlugin.InvalidCredentials()) {
            try BasicAuthenticationPlugin(username: "a:b", password: "pw")
        }
        #expect(throws: BasicAuthenticationPlugin.InvalidCredentials()) {
            try BasicAuthenticationPlugin(username: "ann", password: "p\r\nw")
        }
    }
}

import Foundation
import LoopbackServer
import Synchronization
import Testing
import NetKit
import NetKitTesting

/// Issue 14, item 6: a request can send a field twice, and every `Set-Cookie` of a response reaches the user
/// apart, through the engine and through EKNetwork's facade.
@Suite("Repeated header fields, both ways")
struct RepeatedFieldsTests {
    /// NetCore's own request: EKNetwork-style dictionary headers, then fields in order, a name repeated.
    struct Tagged: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/tagged" }
        var method: HTTPMethod { .get }
        var headers: [String: String]? { ["X-Tag": "from-dictionary", "X-Device": "d-7"] }
        var headerFields: HTTPHeaderFields {
            get throws {
                try HTTPHeaderFields([
                    (name: "X-Tag", value: "a"), (name: "Cookie", value: "a=1"), (name: "x-tag", value: "b"),
                    (name: "Cookie", value: "b=2"),
                ])
            }
        }
    }

    /// The same through EKNetwork's protocol, which refines `Endpoint`.
    struct TaggedRequest: NetworkRequest {
        typealias Response = User
        var path: String { "/tagged" }
        var method: HTTPMethod { .get }
        var headers: [String: String]? { ["X-Tag": "from-dictionary", "X-Device": "d-7"] }
        var headerFields: HTTPHeaderFields {
            get throws { try HTTPHeaderFields([(name: "X-Tag", value: "a"), (name: "X-Tag", value: "b")]) }
        }
    }

    /// EKNetwork's `[String: String]` headers alone.
    struct Plain: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/plain" }
        var method: HTTPMethod { .get }
        var headers: [String: String]? { ["X-One": "1", "x-two": "2", "Accept": "text/csv"] }
    }

    /// A field NetKit would not send: the request fails before anything goes out.
    struct Smuggled: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/x" }
        var method: HTTPMethod { .get }
        var headerFields: HTTPHeaderFields {
            get throws {
                try HTTPHeaderFields([(name: "X-Tag", value: "a"), (name: "X-Tag", value: "b\r\nX-Admin: yes")])
            }
        }
    }

    static let cookies = [
        "sid=s3; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly", "theme=dark", "lang=en; Max-Age=60",
    ]

    /// A 200 with three `Set-Cookie` fields (one whose `Expires` date holds a comma) between other fields.
    static func cookieAnswer(status: Int = 200, body: String = #"{"id":1,"name":"ann"}"#) throws
        -> ScriptedHeadTransport.Answer
    {
        try .fields(
            status,
            [
                (name: "Content-Type", value: "application/json"),
                (name: "Set-Cookie", value: cookies[0]),
                (name: "X-Trace", value: "t-1"),
                (name: "set-cookie", value: cookies[1]),
                (name: "Set-Cookie", value: cookies[2]),
            ], body: body)
    }

    /// Records the `Set-Cookie` values every response showed a plugin.
    struct CookieWatcher: Plugin {
        let seen: EventLog
        func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
            for cookie in response.headerFields.values(for: "Set-Cookie") { seen.append(cookie) }
        }
    }

    // MARK: Sending a field twice

    @Test("the engine sends every field of an Endpoint's headerFields, repeated names as separate fields, in order")
    func endpointSendsFieldTwice() async throws {
        let stub = StubTransport(replies: [.status(204)])
        _ = try await RequestExecutor(transport: stub).send(Tagged(), baseURL: stubBase)
        let fields = try #require(stub.requests.first).head.headerFields
        #expect(
            fields.values(for: "X-Tag") == ["a", "b"], "the fields replace the dictionary's X-Tag, and both are sent")
        #expect(fields.filter { $0.name.lowercased() == "x-tag" }.map(\.value) == ["a", "b"])
        #expect(fields.values(for: "Cookie") == ["a=1", "b=2"])
        #expect(fields.value(for: "Cookie") == "a=1; b=2", "cookies read together join as RFC 6265 says")
        #expect(fields.values(for: "X-Device") == ["d-7"])
    }

    @Test("EKNetwork's facade sends a NetworkRequest's repeated fields too, beside the token")
    func facadeSendsFieldTwice() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.send(TaggedRequest(), accessToken: { "tok" })
        let fields = try #require(stub.requests.first).head.headerFields
        #expect(fields.values(for: "X-Tag") == ["a", "b"])
        #expect(fields.values(for: "X-Device") == ["d-7"])
        #expect(fields.values(for: "Authorization") == ["Bearer tok"])
    }

    @Test("EKNetwork's [String: String] headers still go out once each, any case, and replace NetKit's defaults")
    func dictionaryHeaders() async throws {
        let stub = StubTransport(replies: [.status(204)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.send(Plain(), accessToken: { "tok" })
        let request = try #require(stub.requests.first)
        #expect(request.head.headerFields.values(for: "X-One") == ["1"])
        #expect(request.head.headerFields.values(for: "X-Two") == ["2"])
        #expect(request.head.headerFields.values(for: "Accept") == ["text/csv"])
        #expect(request.head.headerFields.values(for: "Authorization") == ["Bearer tok"])
        #expect(request.value(forHeader: "x-one") == "1")
    }

    @Test("a repeated field with CR or LF fails the request before anything is sent")
    func invalidRepeatedField() async throws {
        let stub = StubTransport(replies: [.status(204)])
        await #expect(throws: NetworkError.invalidHeader(name: "X-Tag")) {
            try await RequestExecutor(transport: stub).send(Smuggled(), baseURL: stubBase)
        }
        #expect(stub.requestCount == 0)
    }

    @Test("over URLSession to a real server, both values of a repeated field arrive")
    func repeatedFieldOverLoopback() async throws {
        let server = try LoopbackServer { _ in .json(#"{"id":1,"name":"ann"}"#) }
        defer { server.stop() }
        _ = try await NetworkManager(baseURL: server.baseURL).send(TaggedRequest(), accessToken: nil)
        let request = try #require(server.requests.first)
        // URLSession sends one field per name, joined as RFC 9110 §5.3 allows; another transport may send two.
        let values = request.headerValues("X-Tag").flatMap {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(values == ["a", "b"])
    }

    // MARK: Every Set-Cookie apart

    @Test("the engine hands every Set-Cookie over apart, to the caller and to plugins")
    func engineKeepsCookiesApart() async throws {
        let seen = EventLog()
        let transport = ScriptedHeadTransport([try Self.cookieAnswer()])
        let executor = RequestExecutor(transport: transport, plugins: [CookieWatcher(seen: seen)])
        let response = try await executor.response(for: GetUser(), baseURL: stubBase)
        #expect(response.value == User(id: 1, name: "ann"))
        #expect(response.headerFields.values(for: "Set-Cookie") == Self.cookies)
        #expect(response.head.headerFields.values(for: "set-cookie") == Self.cookies)
        #expect(response.headerFields.value(for: "X-Trace") == "t-1")
        #expect(seen.all == Self.cookies)
    }

    @Test("EKNetwork's facade hands every Set-Cookie over apart, on send and on stream")
    func facadeKeepsCookiesApart() async throws {
        let seen = EventLog()
        let transport = ScriptedHeadTransport([try Self.cookieAnswer()])
        let manager = NetworkManager(baseURL: stubBase, transport: transport, plugins: [CookieWatcher(seen: seen)])
        let response = try await manager.response(for: GetUser(), accessToken: nil)
        #expect(response.headerFields.values(for: "Set-Cookie") == Self.cookies)
        let streamed = try await manager.stream(GetUser(), accessToken: nil)
        #expect(streamed.headerFields.values(for: "Set-Cookie") == Self.cookies)
        #expect(seen.all == Self.cookies + Self.cookies)
        // The dictionary EKNetwork's users read still has one entry per name, every cookie in it.
        let joined = try #require(response.headers.first { $0.key.lowercased() == "set-cookie" }?.value)
        for cookie in Self.cookies { #expect(joined.contains(cookie)) }
    }

    @Test("a failed response's cookies reach plugins apart too")
    func failedResponseCookies() async throws {
        let seen = EventLog()
        let transport = ScriptedHeadTransport([try Self.cookieAnswer(status: 403, body: "no")])
        let manager = NetworkManager(baseURL: stubBase, transport: transport, plugins: [CookieWatcher(seen: seen)])
        let error = await #expect(throws: HTTPError.self) { try await manager.send(GetUser(), accessToken: nil) }
        #expect(error?.statusCode == 403)
        #expect(seen.all == Self.cookies)
    }

    @Test("over URLSession from a real server, every Set-Cookie arrives apart, an Expires date's comma kept")
    func cookiesOverLoopback() async throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(
                status: 200,
                headers: [(name: "Content-Type", value: "application/json")]
                    + Self.cookies.map { (name: "Set-Cookie", value: $0) },
                body: Data(#"{"id":1,"name":"ann"}"#.utf8)
            )
        }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        // Cookies stay out of any store: this test reads them from the response, and no other test sees them.
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let response = try await NetworkManager(baseURL: server.baseURL, session: session).response(
            for: GetUser(), accessToken: nil)
        #expect(response.headerFields.values(for: "Set-Cookie") == Self.cookies)
    }
}

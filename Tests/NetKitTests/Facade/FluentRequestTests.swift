import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Fluent requests")
struct FluentRequestTests {
    @Test("the issue's chain: method, repeated query items in order, repeated headers, decoded JSON")
    func chain() async throws {
        let stub = StubTransport { _, _ in .json(#"[{"id":1,"name":"ann"},{"id":2,"name":"bob"}]"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let users = try await manager.request("/users").method(.get).query("page", "2").query("tag", "b").query(
            "tag", "a & c"
        )
        .header("X-Trace", "1").header("X-Trace", "2").decode([User].self)
        #expect(users.map(\.name) == ["ann", "bob"])
        let request = try #require(stub.requests.first)
        #expect(request.method == .get)
        #expect(request.head.path == "/v1/users?page=2&tag=b&tag=a%20%26%20c")
        #expect(request.head.headerFields.values(for: "X-Trace") == ["1", "2"])
        #expect(request.value(forHeader: "Accept") == "application/json")
    }

    @Test("a header given here replaces NetKit's default and the manager's default header of that name")
    func headerReplacesDefaults() async throws {
        let stub = StubTransport { _, _ in .data(Data("ok".utf8)) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.defaultHeaders = ["X-Client": "default"]
        _ = try await manager.request("/x").header("Accept", "text/plain").header("x-client", "mine").string()
        let request = try #require(stub.requests.first)
        #expect(request.head.headerFields.values(for: "Accept") == ["text/plain"])
        #expect(request.head.headerFields.values(for: "X-Client") == ["mine"])
    }

    @Test("a JSON body is encoded by the manager's default encoder, or by the chain's own")
    func encodableBody() async throws {
        struct NewUser: Encodable, Sendable { let fullName: String }
        let stub = StubTransport { _, _ in .json(#"{"id":3,"name":"cy"}"#, status: 201) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.defaultEncoder.keyEncodingStrategy = .convertToSnakeCase
        let created = try await manager.request("/users").method(.post).body(NewUser(fullName: "Cy D")).decode(
            User.self)
        #expect(created == User(id: 3, name: "cy"))
        _ = try await manager.request("/users").method(.post).body(NewUser(fullName: "Cy D")).encoder(JSONEncoder())
            .data()
        let bodies = stub.requests.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies == [#"{"full_name":"Cy D"}"#, #"{"fullName":"Cy D"}"#])
        #expect(stub.requests.first?.value(forHeader: "Content-Type") == "application/json")
    }

    @Test("raw and form bodies go as given")
    func otherBodies() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.request("/raw").method(.put).body(Data([0, 1, 2]), contentType: "application/x-bin")
            .data()
        _ = try await manager.request("/form").method(.post).body(RequestBody(formURLEncoded: ["a": "1 2"])).data()
        #expect(stub.requests[0].body == Data([0, 1, 2]))
        #expect(stub.requests[0].value(forHeader: "Content-Type") == "application/x-bin")
        #expect(String(decoding: stub.requests[1].body, as: UTF8.self) == "a=1%202")
        #expect(stub.requests[1].value(forHeader: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test("data() returns the bytes (empty for an empty body), string() the text in its charset, json() untyped JSON")
    func endings() async throws {
        let replies: [StubTransport.Reply] = [
            .data(Data([0xFF, 0x00])),
            .status(204),
            .data(Data([0x63, 0x61, 0x66, 0xE9]), headers: ["Content-Type": "text/plain; charset=iso-8859-1"]),
            .json(#"{"users":[{"id":1}],"next":null,"ok":true}"#),
        ]
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport(replies: replies))
        #expect(try await manager.request("/bin").data() == Data([0xFF, 0x00]))
        #expect(try await manager.request("/none").data().isEmpty)
        #expect(try await manager.request("/text").string() == "café")
        let json = try await manager.request("/json").json()
        #expect(json == .object(["users": .array([.object(["id": .number(1)])]), "next": .null, "ok": .bool(true)]))
    }

    @Test("response() gives the status and headers with the bytes")
    func response() async throws {
        let stub = StubTransport { _, _ in .data(Data("x".utf8), status: 202, headers: ["X-Request-Id": "r1"]) }
        let response = try await NetworkManager(baseURL: stubBase, transport: stub).request("/jobs").method(.post)
            .response()
        #expect(response.statusCode == 202)
        #expect(response.headerFields.value(for: "X-Request-Id") == "r1")
        #expect(response.value == Data("x".utf8))
    }

    @Test("decode of an empty body fails with emptyResponse; decode(EmptyResponse.self) accepts it")
    func emptyBody() async throws {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(204) })
        await #expect(throws: NetworkError.emptyResponse) { try await manager.request("/x").decode(User.self) }
        #expect(try await manager.request("/x").decode(EmptyResponse.self) == EmptyResponse())
    }

    @Test("the access token, retries, plugins and errors take the road of send")
    func sameRoad() async throws {
        let stub = StubTransport(replies: [
            .status(503), .json(#"{"id":1,"name":"ann"}"#), .json(#"{"message":"no"}"#, status: 404),
        ])
        let tenant = InterceptorPlugin(request: { request in
            var request = request
            try request.setHeader("X-Tenant", "acme")
            return request
        })
        let manager = NetworkManager(baseURL: stubBase, transport: stub, plugins: [tenant])
        let user = try await manager.request("/users/1").accessToken("tok").retry(
            RetryPolicy(maxRetryCount: 1, delay: 0)
        ).decode(User.self)
        #expect(user.id == 1)
        #expect(stub.requests.map(\.bearer) == ["Bearer tok", "Bearer tok"])
        #expect(stub.requests.map { $0.value(forHeader: "X-Tenant") } == ["acme", "acme"])
        await #expect(throws: HTTPError.self) { try await manager.request("/users/9").data() }
    }

    @Test("the manager's default retry policy applies unless the chain names one")
    func defaultRetry() async throws {
        let stub = StubTransport { _, index in index == 0 ? .status(503) : .data(Data("ok".utf8)) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.defaultRetryPolicy = RetryPolicy(maxRetryCount: 1, delay: 0)
        #expect(try await manager.request("/x").string() == "ok")
        #expect(stub.requestCount == 2)
    }

    @Test("an invalid header or path fails before anything is sent")
    func invalidInput() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        await #expect(throws: NetworkError.invalidHeader(name: "X-Bad")) {
            try await manager.request("/x").header("X-Bad", "a\r\nInjected: 1").data()
        }
        await #expect(throws: NetworkError.invalidURL) { try await manager.request("/../admin").data() }
        #expect(stub.requestCount == 0)
    }

    @Test("timeout(_:) bounds the whole request")
    func timeout() async throws {
        let stub = StubTransport { _, _ in StubTransport.Reply.status(204).delayed(by: .seconds(600)) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        await #expect(throws: URLError.self) { try await manager.request("/slow").timeout(.milliseconds(50)).data() }
    }

    @Test("baseURL(_:) and decoder(_:) replace the manager's for this request")
    func ownBaseAndDecoder() async throws {
        struct Profile: Decodable, Equatable { let displayName: String }
        let stub = StubTransport { _, _ in .json(#"{"display_name":"Bo"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.responseDecoderProvider = { JSONDecoder() }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let profile = try await manager.request("/me").baseURL(URL(string: "https://other.example/api")!).decoder(
            decoder
        ).decode(Profile.self)
        #expect(profile == Profile(displayName: "Bo"))
        #expect(stub.requests.first?.url?.absoluteString == "https://other.example/api/me")
    }

    @Test("a chain is a value: a shared prefix can be reused")
    func reusablePrefix() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let search = manager.request("/search").header("X-Trace", "1")
        _ = try await search.query("q", "a").data()
        _ = try await search.query("q", "b").data()
        #expect(stub.requests.map(\.head.path) == ["/v1/search?q=a", "/v1/search?q=b"])
        #expect(stub.requests.map { $0.head.headerFields.values(for: "X-Trace") } == [["1"], ["1"]])
    }
}

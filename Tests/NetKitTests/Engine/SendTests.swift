import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

@Suite("send over the stub transport")
struct SendTests {
    @Test("a JSON GET decodes and carries token, user agent and URL")
    func jsonGet() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(
            baseURL: { stubBase }, transport: stub,
            userAgentConfiguration: UserAgentConfiguration(appName: "Test", appVersion: "1"))
        let user = try await manager.send(GetUser(), accessToken: { "abc" })
        #expect(user == User(id: 1, name: "ann"))
        let request = try #require(stub.requests.first)
        #expect(request.url?.absoluteString == "https://api.test/v1/users/1")
        #expect(request.bearer == "Bearer abc")
        #expect(request.value(forHeader: "User-Agent")?.hasPrefix("Test/1 (") == true)
    }

    @Test("a nil or empty token sends no Authorization header", arguments: [nil, ""] as [String?])
    func noToken(token: String?) async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.send(GetUser(), accessToken: { token })
        #expect(stub.requests.first?.bearer == nil)
    }

    @Test("invalid requests fail before anything is sent")
    func validationBeforeSending() async throws {
        struct Traversal: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/files/%2e%2e/etc/passwd" }
            var method: HTTPMethod { .get }
        }
        struct Injected: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/x" }
            var method: HTTPMethod { .get }
            var headers: [String: String]? { ["X-Note": "a\r\nX-Admin: yes"] }
        }
        let stub = StubTransport(replies: [])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        await #expect(throws: NetworkError.invalidURL) { try await manager.send(Traversal(), accessToken: nil) }
        await #expect(throws: NetworkError.invalidHeader(name: "X-Note")) {
            try await manager.send(Injected(), accessToken: nil)
        }
        await #expect(throws: NetworkError.invalidHeader(name: "Authorization")) {
            try await manager.send(DeleteUser(), accessToken: { "tok\r\nen" })
        }
        #expect(stub.requestCount == 0)
    }

    @Test("503 twice then 200 succeeds with two retries")
    func retriesTransientStatus() async throws {
        let stub = StubTransport(replies: [.status(503), .status(503), .json(#"{"id":1,"name":"ann"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let user = try await manager.send(GetUser(retries: 2), accessToken: nil)
        #expect(user.name == "ann")
        #expect(stub.requestCount == 3)
    }

    @Test("retries stop at maxRetryCount with the last error")
    func retriesExhausted() async throws {
        let stub = StubTransport(replies: [.status(503), .status(502), .status(504)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        await #expect(throws: HTTPError.self) { try await manager.send(GetUser(retries: 2), accessToken: nil) }
        #expect(stub.requestCount == 3)
    }

    @Test("transport errors are retried; 404 and allowsRetry == false are not")
    func retryChoices() async throws {
        let flaky = StubTransport(replies: [
            .failure(URLError(.networkConnectionLost)), .json(#"{"id":1,"name":"ann"}"#),
        ])
        _ = try await NetworkManager(baseURL: stubBase, transport: flaky).send(GetUser(retries: 1), accessToken: nil)
        #expect(flaky.requestCount == 2)

        let missing = StubTransport(replies: [.json(#"{"error":"nope"}"#, status: 404), .status(200)])
        let error = await #expect(throws: HTTPError.self) {
            try await NetworkManager(baseURL: stubBase, transport: missing).send(GetUser(retries: 3), accessToken: nil)
        }
        #expect(error?.statusCode == 404)
        #expect(error?.data == Data(#"{"error":"nope"}"#.utf8))
        #expect(missing.requestCount == 1)

        let optedOut = StubTransport(replies: [.status(503), .status(200)])
        await #expect(throws: HTTPError.self) {
            try await NetworkManager(baseURL: stubBase, transport: optedOut).send(
                GetUser(retries: 3, allowsRetry: false), accessToken: nil)
        }
        #expect(optedOut.requestCount == 1)
    }

    @Test("a stream body is never sent twice")
    func streamNotReplayed() async throws {
        struct Upload: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/upload" }
            var method: HTTPMethod { .put }
            var body: RequestBody? {
                RequestBody(stream: InputStream(data: Data("payload".utf8)), contentType: "application/octet-stream")
            }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 3, delay: 0) }
        }
        let stub = StubTransport(replies: [.status(503), .status(200)])
        await #expect(throws: HTTPError.self) {
            try await NetworkManager(baseURL: stubBase, transport: stub).send(Upload(), accessToken: nil)
        }
        #expect(stub.requestCount == 1)
        #expect(stub.requests.first?.body == Data("payload".utf8))
    }

    @Test("errorDecoder turns a failed payload into the caller's error")
    func errorDecoder() async throws {
        let stub = StubTransport(replies: [.json(#"{"message":"name taken"}"#, status: 409)])
        await #expect(throws: APIError(message: "name taken")) {
            try await NetworkManager(baseURL: stubBase, transport: stub).send(CreateUser(), accessToken: nil)
        }
        let undecodable = StubTransport(replies: [.data(Data("<html>".utf8), status: 500)])
        await #expect(throws: HTTPError.self) {
            try await NetworkManager(baseURL: stubBase, transport: undecodable).send(CreateUser(), accessToken: nil)
        }
    }

    @Test("a body that breaks mid-way fails the request")
    func brokenBody() async throws {
        let stub = StubTransport(replies: [
            StubTransport.Reply(
                status: 200, chunks: [Data(#"{"id":1,"#.utf8)], bodyError: URLError(.networkConnectionLost))
        ])
        await #expect(throws: URLError.self) {
            try await NetworkManager(baseURL: stubBase, transport: stub).send(GetUser(), accessToken: nil)
        }
    }

    @Test("empty bodies: EmptyResponse, StatusCodeResponse, and emptyResponse for a value")
    func emptyBodies() async throws {
        let stub = StubTransport(replies: [.status(204), .status(204, headers: ["ETag": "v2"]), .status(200)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        #expect(try await manager.send(DeleteUser(), accessToken: nil) == EmptyResponse())
        let status = try await manager.send(UpdateUser(), accessToken: nil)
        #expect(status.statusCode == 204)
        #expect(status.value(forHeader: "etag") == "v2")
        await #expect(throws: NetworkError.emptyResponse) { try await manager.send(GetUser(), accessToken: nil) }
    }

    @Test("undecodable success bodies throw DecodingError")
    func undecodable() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":"one"}"#)])
        await #expect(throws: DecodingError.self) {
            try await NetworkManager(baseURL: stubBase, transport: stub).send(GetUser(), accessToken: nil)
        }
    }

    @Test("the global decoder applies unless the request opts out")
    func globalDecoder() async throws {
        struct Snake: NetworkRequest {
            struct Value: Decodable, Equatable { let fullName: String }
            typealias Response = Value
            var allowsOverride = true
            var path: String { "/x" }
            var method: HTTPMethod { .get }
            var allowsResponseDecoderOverride: Bool { allowsOverride }
        }
        let stub = StubTransport { _, _ in .json(#"{"full_name":"Ann Lee"}"#) }
        let manager = NetworkManager(
            baseURL: { stubBase }, transport: stub,
            responseDecoderProvider: {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return decoder
            })
        #expect(try await manager.send(Snake(), accessToken: nil).fullName == "Ann Lee")
        await #expect(throws: DecodingError.self) {
            try await manager.send(Snake(allowsOverride: false), accessToken: nil)
        }
    }

    @Test("the base URL closure is read for every request")
    func dynamicBaseURL() async throws {
        let current = Lock(URL(string: "https://one.test")!)
        let stub = StubTransport { _, _ in .json(#"{"id":1,"name":"a"}"#) }
        let manager = NetworkManager(baseURL: { current.withLock { $0 } }, transport: stub)
        _ = try await manager.send(GetUser(), accessToken: nil)
        current.withLock { $0 = URL(string: "https://two.test")! }
        _ = try await manager.send(GetUser(), accessToken: nil)
        #expect(stub.requests.map { $0.url?.host } == ["one.test", "two.test"])
    }

    @Test("progress reaches exactly 1.0 when the request succeeds")
    func progressFinishes() async throws {
        struct Upload: NetworkRequest {
            typealias Response = EmptyResponse
            let progress: NetworkProgress?
            var path: String { "/upload" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { RequestBody(data: Data(count: 1000), contentType: "application/octet-stream") }
        }
        let progress = NetworkProgress()
        let stub = StubTransport(replies: [.status(201)])
        _ = try await NetworkManager(baseURL: stubBase, transport: stub).send(
            Upload(progress: progress), accessToken: nil)
        #expect(progress.fractionCompleted == 1.0)
    }
}

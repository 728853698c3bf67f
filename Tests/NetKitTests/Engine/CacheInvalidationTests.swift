import Foundation
import Testing
import NetKit
import NetKitTesting

/// A method that is not safe makes the stored responses of its target stale on every road (RFC 9111 §4.4): `send`,
/// `streamingResponse` (the road of `stream()`) and `forward` (the road of NetOpenAPI's transport), over the stub
/// transport.
@Suite("Response cache invalidation on every road (stub transport)")
struct CacheInvalidationTests {
    struct GetItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    struct PutItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/items/1" }
        var method: HTTPMethod { .put }
        var body: RequestBody? { RequestBody(data: Data("{}".utf8), contentType: "application/json") }
    }

    struct CreateItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/items" }
        var method: HTTPMethod { .post }
    }

    /// `GET` answers fresh for a minute; `PUT` and `POST` answer with `status` and `headers`.
    static func server(status: Int = 204, headers: [String: String] = [:]) -> StubTransport {
        StubTransport { request, _ in
            request.method == .get
                ? .json("{}", headers: ["Cache-Control": "max-age=60"]) : .status(status, headers: headers)
        }
    }

    static func engine(_ stub: StubTransport) -> RequestExecutor {
        var executor = RequestExecutor(transport: stub)
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        return executor
    }

    static func gets(_ stub: StubTransport) -> Int {
        stub.requests.filter { $0.method == .get }.count
    }

    @Test("a PUT through streamingResponse (the road of stream()) invalidates a stored GET")
    func streamedPutInvalidates() async throws {
        let stub = Self.server()
        let executor = Self.engine(stub)
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        let (response, _) = try await executor.streamingResponse(for: PutItem(), baseURL: stubBase)
        for try await _ in response.body {}
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        #expect(Self.gets(stub) == 2, "the GET after the PUT reached the server")
        #expect(executor.responseCache?.count == 1)
    }

    @Test("a PUT through forward (the road of NetOpenAPI's transport) invalidates a stored GET")
    func forwardedPutInvalidates() async throws {
        let stub = Self.server()
        let executor = Self.engine(stub)
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        let head = try HTTPRequestHead(method: .put, url: stubBase.appending(path: "items/1"))
        let (response, _) = try await executor.forward(
            TransportRequest(head: head, body: UploadSource(data: Data("{}".utf8))), options: .init())
        for try await _ in response.body {}
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        #expect(Self.gets(stub) == 2, "the GET after the PUT reached the server")
    }

    @Test("a failed PUT on any road leaves the stored GET")
    func failedPutKeeps() async throws {
        let stub = Self.server(status: 500)
        let executor = Self.engine(stub)
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        await #expect(throws: (any Error).self) {
            _ = try await executor.streamingResponse(for: PutItem(), baseURL: stubBase)
        }
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        #expect(Self.gets(stub) == 1)
    }

    @Test("a stream GET neither stores nor answers from the cache, and leaves what is stored")
    func streamedGetPassesBy() async throws {
        let stub = Self.server()
        let executor = Self.engine(stub)
        let (response, _) = try await executor.streamingResponse(for: GetItem(), baseURL: stubBase)
        for try await _ in response.body {}
        #expect(executor.responseCache?.count == 0)
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        let (again, _) = try await executor.streamingResponse(for: GetItem(), baseURL: stubBase)
        for try await _ in again.body {}
        #expect(Self.gets(stub) == 3)
        #expect(executor.responseCache?.count == 1)
    }

    @Test("a POST's Location and Content-Location of the same origin are invalidated too; another origin's are not")
    func locationsInvalidated() async throws {
        let stub = Self.server(
            status: 201, headers: ["Location": "/v1/items/1", "Content-Location": "https://other.test/v1/items/1"])
        let executor = Self.engine(stub)
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        _ = try await executor.send(GetItem(), baseURL: URL(string: "https://other.test/v1")!)
        _ = try await executor.send(CreateItem(), baseURL: stubBase)
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        _ = try await executor.send(GetItem(), baseURL: URL(string: "https://other.test/v1")!)
        #expect(
            stub.requests.filter { $0.method == .get }.map { $0.url?.host() } == ["api.test", "other.test", "api.test"])
    }
}

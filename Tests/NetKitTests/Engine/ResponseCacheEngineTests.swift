import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// The response cache on the engine's road, over the stub transport: what reaches the transport, and what the
/// caller gets back.
@Suite("Response cache in the engine (stub transport)")
struct ResponseCacheEngineTests {
    struct Item: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    struct GetItem: NetworkRequest {
        typealias Response = Item
        var headers: [String: String]? = nil
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    struct RenameItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/items/1" }
        var method: HTTPMethod { .post }
    }

    /// A settable wall clock for the cache.
    final class Now: Sendable {
        let value = Lock(Date(timeIntervalSince1970: 1_700_000_000))
        var date: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    static let itemJSON = #"{"id":1,"name":"ann"}"#

    /// A server of `/items/1` with `ETag: "v1"` and `extra` headers: a 304 (with `X-Served: <n>`) to a request whose
    /// `If-None-Match` names it, the item otherwise; `POST` answers 204.
    static func server(_ extra: [String: String] = [:], etag: String = #""v1""#) -> StubTransport {
        let served = Lock(0)
        return StubTransport { request, _ in
            let count = served.withLock { count -> Int in
                count += 1
                return count
            }
            if request.method == .post { return .status(204) }
            var headers = extra.merging(["ETag": etag, "X-Served": String(count)]) { own, _ in own }
            if request.value(forHeader: "If-None-Match") == #""v1""# {
                headers["Content-Type"] = nil
                return .status(304, headers: headers)
            }
            return .json(itemJSON, headers: headers)
        }
    }

    static func manager(_ stub: StubTransport, now: Now = Now(), maximumBytes: Int = 1 << 20) -> NetworkManager {
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.responseCache = ResponseCache(maximumBytes: maximumBytes, now: { now.date })
        return manager
    }

    static func conditional(_ stub: StubTransport) -> [String?] {
        stub.requests.map { $0.value(forHeader: "If-None-Match") }
    }

    @Test(
        "three GETs of an endpoint with an ETag: one full 200, then two 304s seen as the stored 200 with the 304's headers"
    )
    func revalidatesWithETag() async throws {
        let stub = Self.server()
        let manager = Self.manager(stub)
        var responses: [NetworkResponse<Item>] = []
        for _ in 0..<3 { responses.append(try await manager.response(for: GetItem())) }
        #expect(Self.conditional(stub) == [nil, #""v1""#, #""v1""#])
        #expect(responses.map(\.value) == Array(repeating: Item(id: 1, name: "ann"), count: 3))
        #expect(responses.map(\.statusCode) == [200, 200, 200])
        #expect(responses.map { $0.headerFields.value(for: "X-Served") } == ["1", "2", "3"], "the 304's headers win")
        #expect(responses[2].headerFields.value(for: "Content-Type") == "application/json", "stored headers stay")
    }

    @Test("a fresh response answers without the network; once stale it is validated, then fresh again")
    func freshThenStale() async throws {
        let now = Now()
        let stub = Self.server(["Cache-Control": "max-age=60"])
        let manager = Self.manager(stub, now: now)
        _ = try await manager.send(GetItem())
        now.advance(30)
        let hit = try await manager.response(for: GetItem())
        #expect(stub.requestCount == 1)
        #expect(hit.value == Item(id: 1, name: "ann"))
        #expect(hit.headerFields.value(for: "Age") == "30")
        #expect(hit.metrics.responseHead != nil)
        now.advance(31)
        _ = try await manager.send(GetItem())
        #expect(Self.conditional(stub) == [nil, #""v1""#])
        now.advance(59)
        _ = try await manager.send(GetItem())
        #expect(stub.requestCount == 2, "the 304 started a new freshness lifetime")
    }

    @Test("a response is never shared between different Authorization values")
    func authorizationSeparates() async throws {
        let stub = Self.server(["Cache-Control": "max-age=60"])
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem(), accessToken: { "ann" })
        _ = try await manager.send(GetItem(), accessToken: { "bob" })
        _ = try await manager.send(GetItem())
        _ = try await manager.send(GetItem(), accessToken: { "ann" })
        #expect(stub.requests.map(\.bearer) == ["Bearer ann", "Bearer bob", nil])
        #expect(Self.conditional(stub) == [nil, nil, nil])
    }

    @Test("Vary keeps variants apart by the request fields it names")
    func vary() async throws {
        let stub = Self.server(["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem(headers: ["Accept-Language": "en"]))
        _ = try await manager.send(GetItem(headers: ["Accept-Language": "fr"]))
        _ = try await manager.send(GetItem(headers: ["Accept-Language": "en"]))
        _ = try await manager.send(GetItem(headers: ["Accept-Language": "fr"]))
        #expect(stub.requestCount == 2)
    }

    @Test("no-store responses and no-store requests are never stored; no-cache requests are validated")
    func directives() async throws {
        let noStore = Self.server(["Cache-Control": "no-store"])
        let first = Self.manager(noStore)
        _ = try await first.send(GetItem())
        _ = try await first.send(GetItem())
        #expect(Self.conditional(noStore) == [nil, nil])
        #expect(first.responseCache?.count == 0)

        let fresh = Self.server(["Cache-Control": "max-age=60"])
        let second = Self.manager(fresh)
        _ = try await second.send(GetItem(headers: ["Cache-Control": "no-store"]))
        #expect(second.responseCache?.count == 0)
        _ = try await second.send(GetItem())
        _ = try await second.send(GetItem(headers: ["Cache-Control": "no-cache"]))
        #expect(Self.conditional(fresh) == [nil, nil, #""v1""#])
    }

    @Test("a successful POST to the URL removes what is stored for it")
    func unsafeMethodInvalidates() async throws {
        let stub = Self.server(["Cache-Control": "max-age=60"])
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem())
        _ = try await manager.send(RenameItem())
        _ = try await manager.send(GetItem())
        #expect(stub.requests.map(\.method) == [.get, .post, .get])
        #expect(Self.conditional(stub) == [nil, nil, nil])
    }

    @Test("a 304 about another entity tag is not trusted: the request goes again without conditions")
    func mismatchedNotModified() async throws {
        let stub = StubTransport { request, index in
            if request.value(forHeader: "If-None-Match") != nil { return .status(304, headers: ["ETag": #""other""#]) }
            return .json(Self.itemJSON, headers: ["ETag": #""v1""#, "X-Served": String(index)])
        }
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem())
        let response = try await manager.response(for: GetItem())
        #expect(Self.conditional(stub) == [nil, #""v1""#, nil])
        #expect(response.statusCode == 200 && response.headerFields.value(for: "X-Served") == "2")
    }

    @Test("a request's own If-None-Match passes the cache by: it gets the server's 304")
    func callersOwnConditional() async throws {
        let stub = Self.server()
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem())
        await #expect(throws: HTTPError.self) { try await manager.send(GetItem(headers: ["If-None-Match": #""v1""#])) }
        #expect(Self.conditional(stub) == [nil, #""v1""#])
    }

    @Test("only-if-cached with nothing fresh stored is a 504 without the network")
    func onlyIfCached() async throws {
        let stub = Self.server()
        let manager = Self.manager(stub)
        let error = await #expect(throws: HTTPError.self) {
            try await manager.send(GetItem(headers: ["Cache-Control": "only-if-cached"]))
        }
        #expect(error?.statusCode == 504)
        #expect(stub.requestCount == 0)
    }

    @Test("stream passes the cache by")
    func streamPassesBy() async throws {
        let stub = Self.server(["Cache-Control": "max-age=60"])
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem())
        let stream = try await manager.stream(GetItem())
        for try await _ in stream.chunks {}
        #expect(Self.conditional(stub) == [nil, nil])
    }

    @Test("a failed revalidation reaches the caller and keeps the stored response")
    func failedRevalidation() async throws {
        let failing = Lock(false)
        let stub = StubTransport { request, _ in
            if failing.withLock({ $0 }) { return .status(503) }
            return .json(Self.itemJSON, headers: ["ETag": #""v1""#])
        }
        let manager = Self.manager(stub)
        _ = try await manager.send(GetItem())
        failing.withLock { $0 = true }
        await #expect(throws: HTTPError.self) { try await manager.send(GetItem()) }
        #expect(manager.responseCache?.count == 1)
    }

    @Test(
        "RFC 5861 §3: within stale-while-revalidate the stale response answers at once; one validation runs behind it",
        .timeLimit(.minutes(10)))
    func staleWhileRevalidate() async throws {
        let now = Now()
        let gate = StubGate()
        let stub = StubTransport()
        stub.stub(
            .header("If-None-Match", #""v1""#),
            reply: .status(304, headers: ["ETag": #""v1""#, "Cache-Control": "max-age=60"]).held(by: gate))
        stub.stub(
            reply: .json(
                Self.itemJSON, headers: ["ETag": #""v1""#, "Cache-Control": "max-age=1, stale-while-revalidate=60"]))
        let manager = Self.manager(stub, now: now)
        _ = try await manager.send(GetItem())
        now.advance(10)
        // The validation is held at the gate: the answers below cannot have waited for it.
        #expect(try await manager.send(GetItem()) == Item(id: 1, name: "ann"))
        #expect(try await manager.send(GetItem()) == Item(id: 1, name: "ann"))
        await gate.waitForArrivals(1)
        #expect(Self.conditional(stub) == [nil, #""v1""#], "one validation, not one per answer")
        gate.open()
        now.advance(100)
        #expect(try await manager.send(GetItem()) == Item(id: 1, name: "ann"), "past the window: validated first")
        #expect(Self.conditional(stub) == [nil, #""v1""#, #""v1""#])
    }

    @Test("RFC 5861 §4: stale-if-error answers with the stale response in place of a 503 or no connection")
    func staleIfError() async throws {
        let now = Now()
        let failure = Lock<StubTransport.Reply?>(nil)
        let stub = StubTransport { _, _ in
            failure.withLock { $0 }
                ?? .json(Self.itemJSON, headers: ["Cache-Control": "max-age=1, stale-if-error=60"])
        }
        let manager = Self.manager(stub, now: now)
        _ = try await manager.send(GetItem())
        now.advance(10)
        failure.withLock { $0 = .status(503) }
        #expect(try await manager.send(GetItem()) == Item(id: 1, name: "ann"))
        failure.withLock { $0 = .failure(TransportError(.cannotConnect, host: "api.test")) }
        #expect(try await manager.send(GetItem()) == Item(id: 1, name: "ann"))
        failure.withLock { $0 = .failure(TransportError(.tlsFailure, host: "api.test")) }
        await #expect(throws: (any Error).self, "a TLS failure is no outage") { try await manager.send(GetItem()) }
        now.advance(60)
        failure.withLock { $0 = .status(503) }
        await #expect(throws: HTTPError.self, "past the window") { try await manager.send(GetItem()) }
    }

    @Test("RFC 9111 §3: a 404 with explicit freshness is stored and answers again without the network")
    func storesNotFound() async throws {
        let stub = StubTransport { _, _ in
            .json(#"{"error":"gone"}"#, status: 404, headers: ["Cache-Control": "max-age=60"])
        }
        let manager = Self.manager(stub)
        await #expect(throws: HTTPError.self) { try await manager.send(GetItem()) }
        await #expect(throws: HTTPError.self) { try await manager.send(GetItem()) }
        #expect(stub.requestCount == 1)
    }

    struct Propfind: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "/dav/folder" }
        var method: HTTPMethod { .get }
        var requestMethod: HTTPRequestMethod { HTTPRequestMethod(rawValue: "PROPFIND")! }
    }

    @Test("an endpoint's requestMethod is what the transport gets; a success of it invalidates the cache")
    func endpointMethod() async throws {
        let stub = StubTransport { request, _ in
            request.method.rawValue == "PROPFIND" ? .status(207) : .json("{}", headers: ["Cache-Control": "max-age=60"])
        }
        var executor = RequestExecutor(transport: stub)
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        struct Folder: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "/dav/folder" }
            var method: HTTPMethod { .get }
        }
        let base = URL(string: "https://api.test")!
        _ = try await executor.send(Folder(), baseURL: base)
        _ = try await executor.send(Propfind(), baseURL: base)
        _ = try await executor.send(Folder(), baseURL: base)
        #expect(stub.requests.map(\.method.rawValue) == ["GET", "PROPFIND", "GET"], "PROPFIND cleared the stored GET")
    }
}

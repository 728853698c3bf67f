import Foundation
import Synchronization
import Testing
import NetKit
import NetKitTesting

/// Whose a stored response is, over the stub transport: a `private, max-age` answer goes back only to requests that
/// carry the same credentials (every declared credential field, not `Authorization` alone), through the same
/// transport, with the same cookie jar.
@Suite("Response cache partitions (stub transport)")
struct CachePartitionTests {
    struct GetItem: NetworkRequest {
        typealias Response = EmptyResponse
        var headers: [String: String]? = nil
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    /// Declares `X-Functions-Key` (a name that does not look secret) as a credential it sets.
    struct FunctionsKeyPlugin: Plugin {
        var credentialFields: CredentialFields { .header("X-Functions-Key") }
    }

    /// A server whose every answer is one tenant's own: `private, max-age=60`, the body naming the request's number.
    static func server(_ extra: [String: String] = [:]) -> StubTransport {
        StubTransport { _, index in
            .json(
                #"{"n":\#(index)}"#, headers: extra.merging(["Cache-Control": "private, max-age=60"]) { own, _ in own })
        }
    }

    static func engine(_ transport: any HTTPTransport, cache: ResponseCache) -> RequestExecutor {
        var executor = RequestExecutor(transport: transport)
        executor.responseCache = cache
        return executor
    }

    @Test(
        "two tenants with different X-API-Key, or a key the engine or a plugin declares, never get each other's answer",
        arguments: ["X-API-Key", "X-Tenant", "X-Functions-Key"])
    func tenantsKeyedByDeclaredCredential(header: String) async throws {
        let stub = Self.server()
        let cache = ResponseCache(maximumBytes: 1 << 20)
        var executor = Self.engine(stub, cache: cache)
        executor.credentialFields = .header("X-Tenant")
        executor.plugins = [FunctionsKeyPlugin()]
        for key in ["tenant-a", "tenant-b", "tenant-a", "tenant-b"] {
            _ = try await executor.send(GetItem(headers: [header: key]), baseURL: stubBase)
        }
        #expect(
            stub.requests.map { $0.value(forHeader: header) } == ["tenant-a", "tenant-b"],
            "each tenant's first request reaches the server; its second is its own stored answer")
        #expect(cache.count == 2)
    }

    /// `GET /items/1` sent with its own connection settings.
    struct GetItemOver: Endpoint {
        typealias Response = Data
        var connection: ConnectionSettings?
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    /// Settings whose client identity is a certificate of the given (made-up) DER bytes.
    static func identity(_ base64: String) throws -> ConnectionSettings {
        var settings = ConnectionSettings()
        settings.tls.clientIdentity = try ClientIdentity(
            certificateChainPEM: "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n",
            privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n")
        return settings
    }

    @Test(
        "a response fetched with one TLS client certificate answers that certificate only; one fetched under weaker trust never answers a pinned request"
    )
    func connectionSettingsKeepApart() async throws {
        let stub = Self.server()
        let cache = ResponseCache(maximumBytes: 1 << 20)
        let executor = Self.engine(stub, cache: cache)
        let alice = try Self.identity("QUxJQ0U=")
        let bob = try Self.identity("Qk9C")
        let hashes = ["A", "B"].map { String(repeating: $0, count: 43) + "=" }
        var pinned = ConnectionSettings()
        pinned.tls.pins = [try CertificatePin(host: "api.test", sha256: hashes)]
        var pinnedElsewhere = ConnectionSettings()
        pinnedElsewhere.tls.pins = [try CertificatePin(host: "other.test", sha256: hashes)]
        var http1 = ConnectionSettings()
        http1.httpVersion = .http1Only
        for settings in [alice, bob, alice, nil, bob, pinned, nil, pinnedElsewhere, http1] {
            _ = try await executor.send(GetItemOver(connection: settings), baseURL: stubBase)
        }
        #expect(
            stub.requests.map { $0.connection?.tls.clientIdentity?.certificateChain.first?.der } == [
                Array("ALICE".utf8), Array("BOB".utf8), nil, nil,
            ],
            "alice, bob, no identity and the pinned request each reached the server once")
        #expect(stub.requests.last?.connection?.tls.pins.count == 1, "the fourth was the pinned one")
        #expect(
            stub.requestCount == 4,
            "a pin for another host and the HTTP version bear on nothing here: the plain response answers them")
    }

    @Test("a response stored on disk with a client certificate answers that certificate only after a relaunch too")
    func connectionSettingsKeepApartOnDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "netkit-partition-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = Self.server()
        let alice = try Self.identity("QUxJQ0U=")
        let bob = try Self.identity("Qk9C")
        do {
            let cache = try ResponseCache(directory: directory, maximumBytes: 1 << 20)
            _ = try await Self.engine(stub, cache: cache).send(GetItemOver(connection: alice), baseURL: stubBase)
            _ = try await Self.engine(stub, cache: cache).send(GetItemOver(), baseURL: stubBase)
        }
        // A new cache on the same folder knows the entries by their sealed owners only.
        let relaunched = try ResponseCache(directory: directory, maximumBytes: 1 << 20)
        let executor = Self.engine(stub, cache: relaunched)
        for settings in [bob, alice, nil, bob] {
            _ = try await executor.send(GetItemOver(connection: settings), baseURL: stubBase)
        }
        #expect(
            stub.requests.map { $0.connection?.tls.clientIdentity?.certificateChain.first?.der } == [
                Array("ALICE".utf8), nil, Array("BOB".utf8),
            ],
            "after the relaunch only bob's first request reached the server; alice and the plain one were answered")
    }

    @Test("a header that is not a credential and not named by Vary does not split the cache")
    func otherHeadersShare() async throws {
        let stub = Self.server()
        let cache = ResponseCache(maximumBytes: 1 << 20)
        let executor = Self.engine(stub, cache: cache)
        _ = try await executor.send(GetItem(headers: ["X-Client": "one"]), baseURL: stubBase)
        _ = try await executor.send(GetItem(headers: ["X-Client": "two"]), baseURL: stubBase)
        #expect(stub.requestCount == 1)
    }

    @Test("two cookie jars never get each other's answer, and each jar gets the cookies the response sets")
    func cookieJarsKeepApart() async throws {
        let stub = Self.server(["Set-Cookie": "seen=1; Path=/"])
        let cache = ResponseCache(maximumBytes: 1 << 20)
        var first = Self.engine(stub, cache: cache)
        first.cookieJar = CookieJar()
        var second = first
        second.cookieJar = CookieJar()
        // Both jars are empty: the requests carry the same (no) Cookie header; the jar alone tells them apart.
        _ = try await first.send(GetItem(), baseURL: stubBase)
        _ = try await second.send(GetItem(), baseURL: stubBase)
        #expect(stub.requestCount == 2, "the second jar's request reached the server")
        #expect(second.cookieJar?.cookies(for: stubBase).map(\.name) == ["seen"])
    }

    @Test("one engine with its one jar is answered from the cache")
    func sameJarShares() async throws {
        let stub = Self.server()
        let cache = ResponseCache(maximumBytes: 1 << 20)
        var executor = Self.engine(stub, cache: cache)
        executor.cookieJar = CookieJar()
        let copy = executor
        _ = try await executor.send(GetItem(), baseURL: stubBase)
        _ = try await copy.send(GetItem(), baseURL: stubBase)
        #expect(stub.requestCount == 1)
    }

    @Test("two transports never get each other's answer; copies of one engine over one transport do")
    func transportsKeepApart() async throws {
        let first = Self.server()
        let second = Self.server()
        let cache = ResponseCache(maximumBytes: 1 << 20)
        let engine = Self.engine(first, cache: cache)
        var other = engine
        other.transport = second
        _ = try await engine.send(GetItem(), baseURL: stubBase)
        _ = try await other.send(GetItem(), baseURL: stubBase)
        let copy = engine
        _ = try await copy.send(GetItem(), baseURL: stubBase)
        #expect(first.requestCount == 1)
        #expect(second.requestCount == 1, "the second transport's request reached it")
    }
}

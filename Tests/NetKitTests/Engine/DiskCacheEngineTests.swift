import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// The cache on disk, and in a store of the user's own, on the engine's road over the stub transport: what one
/// launch stored answers the next (a new manager over a new transport instance), for the same caller only.
@Suite("Response cache on disk and in a store of your own (stub transport)")
struct DiskCacheEngineTests {
    struct GetItem: NetworkRequest {
        typealias Response = Data
        var headers: [String: String]? = nil
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    /// A server of `/items/1`: fresh for a minute, with an ETag; a 304 to a request that names it.
    static func server() -> StubTransport {
        StubTransport { request, _ in
            if request.value(forHeader: "If-None-Match") == #""v1""# {
                return .status(304, headers: ["ETag": #""v1""#, "X-Validated": "yes"])
            }
            return .data(Data("stored item".utf8), headers: ["Cache-Control": "max-age=60", "ETag": #""v1""#])
        }
    }

    static func manager(_ transport: StubTransport, _ cache: ResponseCache) -> NetworkManager {
        let manager = NetworkManager(baseURL: stubBase, transport: transport)
        manager.responseCache = cache
        return manager
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appending(path: "netkit-disk-engine-\(UUID().uuidString)")
    }

    @Test("a launch answers from what the last stored on disk, without the network; another token is asked anew")
    func relaunch() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = Self.server()
        do {
            let manager = Self.manager(first, try ResponseCache(directory: directory, maximumBytes: 1 << 20))
            #expect(try await manager.send(GetItem(), accessToken: { "ann" }) == Data("stored item".utf8))
        }
        #expect(first.requestCount == 1)

        let second = Self.server()
        let manager = Self.manager(second, try ResponseCache(directory: directory, maximumBytes: 1 << 20))
        let again = try await manager.response(for: GetItem(), accessToken: { "ann" })
        #expect(again.value == Data("stored item".utf8))
        #expect(second.requestCount == 0, "answered from the disk")
        _ = try await manager.send(GetItem(), accessToken: { "bob" })
        _ = try await manager.send(GetItem())
        #expect(second.requests.map(\.bearer) == ["Bearer bob", nil], "other callers go to the server")
    }

    @Test("the token is nowhere in the cache directory")
    func noTokenOnDisk() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = Self.manager(Self.server(), try ResponseCache(directory: directory, maximumBytes: 1 << 20))
        _ = try await manager.send(GetItem(), accessToken: { "token-4711-secret" })
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasSuffix(".entry") })
        for name in names {
            let bytes = try Data(contentsOf: directory.appending(path: name))
            #expect(bytes.range(of: Data("token-4711-secret".utf8)) == nil, "\(name) holds the token")
            #expect(bytes.range(of: Data("/items/1".utf8)) == nil, "\(name) holds the path")
        }
    }

    @Test("a store of your own (Docs/Caching.md's) answers across managers and validates with 304 as the others do")
    func storeOfYourOwn() async throws {
        let storage = KeyValueCacheStore(maximumBytes: 1 << 20)
        let first = Self.server()
        _ = try await Self.manager(first, ResponseCache(store: storage)).send(GetItem(), accessToken: { "ann" })
        #expect(storage.count == 1)

        let second = Self.server()
        let manager = Self.manager(second, ResponseCache(store: storage))
        #expect(try await manager.send(GetItem(), accessToken: { "ann" }) == Data("stored item".utf8))
        #expect(second.requestCount == 0)
        let validated = try await manager.response(
            for: GetItem(headers: ["Cache-Control": "no-cache"]), accessToken: { "ann" })
        #expect(validated.value == Data("stored item".utf8))
        #expect(validated.headerFields.value(for: "X-Validated") == "yes")
        #expect(second.requests.map { $0.value(forHeader: "If-None-Match") } == [#""v1""#])
    }
}

extension DiskCacheEngineTests {
    @Test("a response read from disk and validated by a 304 is stored again, fresh: the next request needs no network")
    func validatedEntryIsStoredAgain() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Lock(Date(timeIntervalSince1970: 1_700_000_000))
        do {
            let cache = ResponseCache(
                store: try ResponseCache(directory: directory, maximumBytes: 1 << 20).store,
                now: { now.withLock { $0 } })
            _ = try await Self.manager(Self.server(), cache).send(GetItem(), accessToken: { "ann" })
        }
        now.withLock { $0 += 120 }  // stale: max-age is 60
        let server = Self.server()
        let cache = ResponseCache(
            store: try ResponseCache(directory: directory, maximumBytes: 1 << 20).store, now: { now.withLock { $0 } })
        let manager = Self.manager(server, cache)
        let validated = try await manager.response(for: GetItem(), accessToken: { "ann" })
        #expect(validated.headerFields.value(for: "X-Validated") == "yes")
        #expect(validated.metrics.cacheEvents == [.revalidated])
        let again = try await manager.response(for: GetItem(), accessToken: { "ann" })
        #expect(again.metrics.cacheEvents == [.hit])
        #expect(server.requestCount == 1, "the 304 started a new freshness")
        #expect(cache.count == 1)
    }
}

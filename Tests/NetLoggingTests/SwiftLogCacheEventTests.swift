#if Logging
import Foundation
import InMemoryLogging
import Logging
import NetCore
import NetKitTesting
import NetLogging
import Testing

@Suite("NetworkLogger(swiftLog:): the response cache's events")
struct SwiftLogCacheEventTests {
    @Test("a request the cache took part in ends with a cache entry whose metadata lists the events")
    func cacheEntry() async throws {
        let (logger, handler) = inMemoryLogger(at: .debug)
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        var executor = RequestExecutor(
            transport: stub, plugins: [LoggingPlugin(logger: NetworkLogger(swiftLog: logger))])
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        _ = try await executor.send(Search(), baseURL: base)
        _ = try await executor.send(Search(), baseURL: base)

        let cache = handler.entries.filter { $0["netkit.event"] == "cache" }
        #expect(cache.count == 2)
        #expect(cache.map(\.level) == [.debug, .debug])
        #expect(cache.map { $0.metadata["netkit.cache_events"] } == [.array(["miss", "stored"]), .array(["hit"])])
        #expect(cache.last?.message.description == "GET https://api.test/v1/search?api_key=…&q=…: cache hit")
        #expect(cache.allSatisfy { $0["url.full"] == "https://api.test/v1/search?api_key=…&q=…" })
        #expect(cache.allSatisfy { $0["netkit.request_number"] != nil })
        #expect(
            handler.entries.filter { $0["netkit.event"] != "cache" }.allSatisfy { $0["netkit.cache_events"] == nil })
        for entry in handler.entries {
            for secret in secretValues { #expect(!entry.texts.contains { $0.contains(secret) }, "\(entry)") }
        }
    }
}
#endif

import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

/// `RequestMetrics.cacheEvents` over the stub transport: each event recorded for the situation that produces it,
/// in order, and none for a request the cache does not take part in.
@Suite("Cache events in the request's metrics (stub transport)")
struct CacheEventTests {
    typealias Now = ResponseCacheEngineTests.Now

    struct Item: Endpoint {
        typealias Response = Data
        var headers: [String: String]? = nil
        var retryPolicy = RetryPolicy(maxRetryCount: 0, delay: 0)
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    struct Rename: Endpoint {
        typealias Response = Data
        var path: String { "/items/1" }
        var method: HTTPMethod { .post }
    }

    /// Keeps the metrics every request ends with, successful or not.
    final class FinishedMetrics: Plugin, Sendable {
        private let all = Lock<[RequestMetrics]>([])

        /// The events of the last request that ended.
        var lastEvents: [CacheEvent]? { all.withLock { $0.last?.cacheEvents } }

        func didFinish(
            _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
            context: PluginContext
        ) async {
            all.withLock { $0.append(metrics) }
        }
    }

    /// An engine over `stub` with a cache on `now`'s clock and a plugin that keeps every request's metrics.
    static func engine(_ stub: StubTransport, now: Now = Now(), maximumBytes: Int = 1 << 20)
        -> (RequestExecutor, FinishedMetrics)
    {
        let finished = FinishedMetrics()
        var executor = RequestExecutor(transport: stub, plugins: [finished])
        executor.responseCache = ResponseCache(maximumBytes: maximumBytes, now: { now.date })
        return (executor, finished)
    }

    /// The events of sending `request`, whether it succeeds or throws.
    static func events(_ executor: RequestExecutor, _ finished: FinishedMetrics, _ request: Item = Item())
        async -> [CacheEvent]?
    {
        _ = try? await executor.send(request, baseURL: stubBase)
        return finished.lastEvents
    }

    @Test("a stored fresh response answers as a hit; the request that stored it was a miss, then stored")
    func hit() async throws {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        let (executor, _) = Self.engine(stub)
        let first = try await executor.response(for: Item(), baseURL: stubBase)
        let second = try await executor.response(for: Item(), baseURL: stubBase)
        #expect(first.metrics.cacheEvents == [.miss, .stored])
        #expect(second.metrics.cacheEvents == [.hit])
        #expect(stub.requestCount == 1, "the hit did not reach the transport")
        #expect(second.metrics.description.hasSuffix(", cache: hit"), "\(second.metrics)")
        #expect(first.metrics.description.hasSuffix(", cache: miss, stored"), "\(first.metrics)")
    }

    @Test("a stale response validated by a 304 is revalidated; one answered with a full 200 is a miss, then stored")
    func revalidatedOrReplaced() async throws {
        let now = Now()
        let changed = Lock(false)
        let stub = StubTransport { request, _ in
            let tag = changed.withLock { $0 } ? #""v2""# : #""v1""#
            if request.value(forHeader: "If-None-Match") == tag { return .status(304, headers: ["ETag": tag]) }
            return .json("{}", headers: ["ETag": tag, "Cache-Control": "max-age=10"])
        }
        let (executor, finished) = Self.engine(stub, now: now)
        #expect(await Self.events(executor, finished) == [.miss, .stored])
        now.advance(20)
        #expect(await Self.events(executor, finished) == [.revalidated])
        now.advance(20)
        changed.withLock { $0 = true }
        #expect(await Self.events(executor, finished) == [.miss, .stored], "the server's 200 replaced it")
        #expect(stub.requests.map { $0.value(forHeader: "If-None-Match") } == [nil, #""v1""#, #""v1""#])
    }

    @Test("within the request's max-stale a stale response answers as served stale (max-stale)")
    func maxStale() async throws {
        let now = Now()
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        let (executor, finished) = Self.engine(stub, now: now)
        _ = await Self.events(executor, finished)
        now.advance(90)
        let events = await Self.events(executor, finished, Item(headers: ["Cache-Control": "max-stale=60"]))
        #expect(events == [.servedStale(.maxStale)])
        #expect(stub.requestCount == 1)
    }

    /// Waits in `didReceive`, after the cache stage has answered and before the request ends, until the background
    /// validation has updated the stored response (a bounded poll of the cache): its events, had they been
    /// recorded, would be in the request's metrics.
    struct AwaitsBackgroundValidation: Plugin {
        let cache: ResponseCache

        var validated: Bool {
            (cache.store as? MemoryCacheStore)?.entriesByRecency.first?.response.head.headerFields.value(
                for: "X-Validated") == "yes"
        }

        func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
            for _ in 0..<500 where !validated {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Stores a response fresh for 1 s with `stale-while-revalidate=60`, lets 10 s pass, then sends the request again
    /// with `plugins` beside a plugin that holds it open until the background validation has stored its 304: the
    /// stale answer's metrics, and the stub (which saw the first request and the validation).
    func staleWhileRevalidating(plugins: [any Plugin] = []) async throws -> (RequestMetrics, StubTransport) {
        let now = Now()
        let stub = StubTransport { request, _ in
            if request.value(forHeader: "If-None-Match") != nil {
                return .status(304, headers: ["ETag": #""v1""#, "X-Validated": "yes"])
            }
            return .json("{}", headers: ["ETag": #""v1""#, "Cache-Control": "max-age=1, stale-while-revalidate=60"])
        }
        let cache = ResponseCache(maximumBytes: 1 << 20, now: { now.date })
        var executor = RequestExecutor(transport: stub)
        executor.responseCache = cache
        _ = try await executor.send(Item(), baseURL: stubBase)
        now.advance(10)
        var waiting = RequestExecutor(transport: stub, plugins: [AwaitsBackgroundValidation(cache: cache)] + plugins)
        waiting.responseCache = cache
        let stale = try await waiting.response(for: Item(), baseURL: stubBase)
        #expect(
            AwaitsBackgroundValidation(cache: cache).validated,
            "the background validation did not finish within 5 s: this test proves nothing")
        #expect(stub.requests.map { $0.value(forHeader: "If-None-Match") } == [nil, #""v1""#])
        return (stale.metrics, stub)
    }

    @Test(
        "stale-while-revalidate: served stale; the background validation's outcome is not in the request's events",
        .timeLimit(.minutes(10)))
    func staleWhileRevalidate() async throws {
        let (metrics, _) = try await staleWhileRevalidating()
        #expect(
            metrics.cacheEvents == [.servedStale(.staleWhileRevalidate)],
            "the background validation ended before the request did, yet must not add its events")
    }

    @Test(
        "stale-while-revalidate: the background validation, run while the request is still open, tells its observers nothing",
        .timeLimit(.minutes(10)))
    func backgroundValidationTellsNoEvent() async throws {
        let recorder = EventRecorder()
        _ = try await staleWhileRevalidating(plugins: [recorder])
        #expect(RequestEventGrammar.violations(in: recorder.events) == [])
        #expect(recorder.requestNumbers.count == 1)
        let names = recorder.requestNumbers.first.map(recorder.kindNames(of:)) ?? []
        #expect(names.first == "call_start" && names.last == "call_end", "\(names)")
        #expect(names.filter { $0 == "attempt_start" }.count == 1, "\(names)")
        #expect(!names.contains("request_start"), "the validation's exchange was told: \(names)")
    }

    @Test("stale-if-error: served stale on a 503 (the 503 refused as uncacheable) and on a failed connection")
    func staleIfError() async throws {
        let now = Now()
        let failure = Lock<StubTransport.Reply?>(nil)
        let stub = StubTransport { _, _ in
            failure.withLock { $0 } ?? .json("{}", headers: ["Cache-Control": "max-age=1, stale-if-error=60"])
        }
        let (executor, finished) = Self.engine(stub, now: now)
        _ = await Self.events(executor, finished)
        now.advance(10)
        failure.withLock { $0 = .status(503) }
        #expect(
            await Self.events(executor, finished)
                == [.servedStale(.staleIfErrorStatus), .notStored(.statusNeedsExplicitFreshness)])
        failure.withLock { $0 = .failure(TransportError(.cannotConnect, host: "api.test")) }
        #expect(await Self.events(executor, finished) == [.servedStale(.staleIfErrorConnection)])
        now.advance(60)
        #expect(await Self.events(executor, finished) == [.miss], "past the window: the failure is the answer")
    }

    @Test(
        "each refusal to store is recorded with its reason",
        arguments: [
            (StubTransport.Reply.json("{}", headers: ["Cache-Control": "no-store, max-age=60"]), .noStore),
            (.json("{}", headers: ["Cache-Control": "max-age=60", "Vary": "*"]), .varyAsterisk),
            (.json("{}", status: 206, headers: ["Cache-Control": "max-age=60"]), .status),
            (.json("{}", status: 201, headers: ["ETag": #""a""#]), .statusNeedsExplicitFreshness),
            (.json("{}"), .noFreshnessOrValidator),
            (.json("{}", headers: ["Cache-Control": "no-cache"]), .noCacheWithoutValidator),
            (
                .json("{}", status: 299, headers: ["Cache-Control": "max-age=60, no-store, must-understand"]),
                .mustUnderstand
            ),
        ] as [(StubTransport.Reply, CacheEvent.NotStoredReason)])
    func notStored(_ reply: StubTransport.Reply, _ reason: CacheEvent.NotStoredReason) async throws {
        let (executor, finished) = Self.engine(StubTransport(replies: [reply]))
        #expect(await Self.events(executor, finished) == [.miss, .notStored(reason)])
        #expect(executor.responseCache?.count == 0)
    }

    @Test("a response larger than the cache's bound is not stored: too large (what the store said)")
    func tooLarge() async throws {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        let (executor, finished) = Self.engine(stub, maximumBytes: 16)
        #expect(await Self.events(executor, finished) == [.miss, .notStored(.tooLarge)])
        let (roomy, roomyFinished) = Self.engine(stub, maximumBytes: 1 << 20)
        #expect(await Self.events(roomy, roomyFinished) == [.miss, .stored], "the same response fits a larger cache")
    }

    @Test("an error body cut at errorPayloadLimit is not stored: incomplete")
    func incomplete() async throws {
        let body = String(repeating: "x", count: 100)
        let stub = StubTransport { _, _ in .text(body, status: 404, headers: ["Cache-Control": "max-age=60"]) }
        let (engine, finished) = Self.engine(stub)
        var executor = engine
        executor.errorPayloadLimit = 10
        #expect(await Self.events(executor, finished) == [.miss, .notStored(.incomplete)])
        executor.errorPayloadLimit = 1000
        #expect(await Self.events(executor, finished) == [.miss, .stored], "the whole 404 is stored")
    }

    @Test("a successful POST records invalidated; the GET after it misses")
    func invalidated() async throws {
        let stub = StubTransport { request, _ in
            request.method == .post ? .status(204) : .json("{}", headers: ["Cache-Control": "max-age=60"])
        }
        let (executor, finished) = Self.engine(stub)
        _ = await Self.events(executor, finished)
        _ = try await executor.send(Rename(), baseURL: stubBase)
        #expect(finished.lastEvents == [.invalidated])
        #expect(await Self.events(executor, finished) == [.miss, .stored])
    }

    @Test("a failed POST invalidates nothing and records nothing")
    func failedUnsafeMethod() async throws {
        let (executor, finished) = Self.engine(StubTransport(replies: [.status(500)]))
        _ = try? await executor.send(Rename(), baseURL: stubBase)
        #expect(finished.lastEvents == [])
    }

    @Test("only-if-cached with nothing stored: unavailable, a 504 without the network")
    func unavailable() async throws {
        let stub = StubTransport(replies: [])
        let (executor, finished) = Self.engine(stub)
        #expect(
            await Self.events(executor, finished, Item(headers: ["Cache-Control": "only-if-cached"])) == [.unavailable])
        #expect(stub.requestCount == 0)
    }

    @Test("a failure to reach the server with nothing stored is a miss")
    func failedMiss() async throws {
        let (executor, finished) = Self.engine(StubTransport(replies: [.failure(.cannotConnect)]))
        #expect(await Self.events(executor, finished) == [.miss])
    }

    @Test("a retried request records each pass through the cache, in order")
    func retried() async throws {
        let stub = StubTransport(replies: [.status(503), .json("{}", headers: ["Cache-Control": "max-age=60"])])
        let (executor, finished) = Self.engine(stub)
        let request = Item(retryPolicy: RetryPolicy(maxRetryCount: 1, delay: 0))
        #expect(
            await Self.events(executor, finished, request)
                == [.miss, .notStored(.statusNeedsExplicitFreshness), .miss, .stored])
    }

    @Test("no events without a cache, or for a request the cache does not take part in")
    func noEvents() async throws {
        let stub = StubTransport { _, _ in .json("{}", headers: ["Cache-Control": "max-age=60"]) }
        let plain = try await RequestExecutor(transport: stub).response(for: Item(), baseURL: stubBase)
        #expect(plain.metrics.cacheEvents.isEmpty)
        #expect(!plain.metrics.description.contains("cache"), "\(plain.metrics)")
        let (executor, finished) = Self.engine(stub)
        _ = await Self.events(executor, finished, Item(headers: ["Cache-Control": "no-store"]))
        #expect(finished.lastEvents == [])
        _ = await Self.events(executor, finished, Item(headers: ["If-None-Match": #""a""#]))
        #expect(finished.lastEvents == [])
    }
}

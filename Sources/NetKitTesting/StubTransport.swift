#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NetKitLock

/// A transport for your tests: it answers from stubs that match conditions, from a script or from a closure,
/// records every request, and can fail or wait.
///
/// Stubs match a request by conditions (``StubCondition``: method, path, host, query item, header, a regular
/// expression on the URL, a closure of your own), all of which must hold; the first stub registered that matches
/// answers. A request no stub matches goes to the script or closure the stub was created with, if any; otherwise
/// it is kept in ``unmatchedRequests`` and fails with ``NoMatchingStub``, which names its method and its URL
/// (query values redacted).
///
/// ```swift
/// let stub = StubTransport()
/// stub.stub(.method(.get), .path("/v1/users/1"), reply: .json(#"{"id":1,"name":"ann"}"#))
/// stub.stub(.method(.delete), reply: .failure(.timedOut))
/// let manager = NetworkManager(baseURL: URL(string: "https://api.test/v1")!, transport: stub)
/// let user = try await manager.send(GetUser(), accessToken: nil)
/// #expect(stub.unmatchedRequests.isEmpty)
/// ```
///
/// By order, as before: `StubTransport(replies: [.status(503), .json(#"{"id":1}"#)])`.
///
/// Delays (``Reply/delayed(by:)``) are slept on the clock you give (`StubTransport(clock:)`; by default the
/// continuous clock), so a test can pass one that does not sleep; a ``StubGate`` (``Reply/held(by:)``) holds
/// replies until the test opens it, and tells the test when requests have arrived.
///
/// Faults (``Reply/fault(_:)``, ``StubFault``) make a reply misbehave as a server would — a reset before the head, a
/// connection closed mid-body, a stall, a `Content-Length` never reached, a slow trickle — so your retry and timeout
/// handling is tested without a server: `.json("{}").fault(.closeMidBody(afterBytes: 2))`.
public final class StubTransport: HTTPTransport {
    /// What the stub answers to one request.
    public struct Reply: Sendable {
        /// The status code.
        public var status: Int
        /// The response headers.
        public var headers: [String: String]
        /// The body, delivered as these chunks in order.
        public var chunks: [Data]
        /// Simulated latency before the head (cancellable).
        public var delay: Duration?
        /// An error thrown instead of answering.
        public var error: (any Error)?
        /// An error that ends the body after the chunks, as a dropped connection would.
        public var bodyError: (any Error)?
        /// Header fields sent after ``headers``, in order, repeated names kept (several `Set-Cookie`).
        public var additionalHeaders: [(name: String, value: String)] = []
        /// Holds the reply, after its ``delay``, until the gate opens.
        public var gate: StubGate?
        /// How the reply misbehaves, as a server or network would (``fault(_:)``): in the order added.
        public var faults: [StubFault] = []
        /// A file the body is read from, piece by piece, instead of ``chunks``: a replayed recording's body, of any
        /// size, in bounded memory.
        var bodyFile: URL?
        /// The sizes of the pieces ``bodyFile`` is delivered in, in order; past them the rest of the file comes as one
        /// last piece. `nil`: pieces of 64 KiB.
        var chunkSizes: [Int]?
        /// The pause (on the stub's clock) before each piece of the body — of ``chunks``, or of ``bodyFile`` as
        /// ``chunkSizes`` cuts it; none for a piece past the end of the list. `nil`: no pauses.
        var chunkDelays: [Duration]?

        /// Creates a reply.
        public init(
            status: Int = 200,
            headers: [String: String] = [:],
            chunks: [Data] = [],
            delay: Duration? = nil,
            error: (any Error)? = nil,
            bodyError: (any Error)? = nil
        ) {
            self.status = status
            self.headers = headers
            self.chunks = chunks
            self.delay = delay
            self.error = error
            self.bodyError = bodyError
        }

        /// A JSON body with `Content-Type: application/json`.
        public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> Reply {
            Reply(
                status: status, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own },
                chunks: [Data(text.utf8)])
        }

        /// A body of raw bytes.
        public static func data(_ data: Data, status: Int = 200, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, headers: headers, chunks: [data])
        }

        /// A status with an empty body.
        public static func status(_ status: Int, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, headers: headers)
        }

        /// An error instead of a response (for example `TransportError(.timedOut)`).
        public static func failure(_ error: any Error) -> Reply {
            Reply(error: error)
        }

        /// This reply after `delay` of simulated latency, slept on the stub's clock.
        public func delayed(by delay: Duration) -> Reply {
            var copy = self
            copy.delay = delay
            return copy
        }
    }

    /// No stub matched a request, and the stub has no script or closure to fall back on.
    public struct NoMatchingStub: Error, Sendable, Equatable, CustomStringConvertible {
        /// The request's method.
        public let method: HTTPRequestMethod
        /// The request's URL, query values redacted.
        public let url: String
        /// The number of stubs registered when the request arrived.
        public let stubCount: Int

        /// Creates the error.
        public init(method: HTTPRequestMethod, url: String, stubCount: Int) {
            self.method = method
            self.url = url
            self.stubCount = stubCount
        }

        /// A sentence naming the request that no stub matched.
        public var description: String {
            "No stub matched \(method.rawValue) \(url) (\(stubCount) stub\(stubCount == 1 ? "" : "s") registered)."
        }
    }

    /// A request as the stub saw it, with its body read into memory.
    public struct RecordedRequest: Sendable {
        /// Method, target and header fields.
        public let head: HTTPRequestHead
        /// The body bytes (empty for a request without a body).
        public let body: Data
        /// Whether the request had a body at all (an empty one counts).
        public let hasBody: Bool
        /// The connection settings it was sent with (`TransportRequest.connection`, the proxy environment
        /// already read for its URL); `nil`: the transport's defaults.
        public var connection: ConnectionSettings? = nil

        /// The method.
        public var method: HTTPRequestMethod { head.method }
        /// The URL.
        public var url: URL? { head.url }
        /// A header's value (case-insensitive; repeated fields joined, see `HTTPHeaderFields.value(for:)`).
        public func value(forHeader name: String) -> String? { head.headerFields.value(for: name) }
    }

    /// The error a scripted stub throws once its replies run out.
    public struct ScriptExhausted: Error, Equatable {
        /// The number of requests the script had replies for.
        public let replies: Int

        /// Creates the error for a script of `replies` replies.
        public init(replies: Int) {
            self.replies = replies
        }
    }

    /// What answers a request no stub matches.
    private let fallback: (@Sendable (TransportRequest, Int) async throws -> Reply)?
    private let clock: any Clock<Duration>
    private let recorded = Lock<[RecordedRequest]>([])
    private let registry = Lock<(stubs: [Stub], matches: [Int], unmatched: [RecordedRequest], fallbacks: Int)>(
        ([], [], [], 0))

    /// A stub that answers from the stubs you register (``stub(_:reply:)``, ``add(_:)``) and fails requests none
    /// matches with ``NoMatchingStub``.
    /// - Parameter clock: What reply delays are slept on (a test can pass one that does not sleep).
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        self.fallback = nil
        self.clock = clock
    }

    /// A stub that computes each reply no registered stub answers; the `Int` is the request's 0-based position
    /// among those (among all requests, when no stub is registered).
    public init(_ handler: @escaping @Sendable (TransportRequest, Int) async throws -> Reply) {
        self.fallback = handler
        self.clock = ContinuousClock()
    }

    /// A stub that answers requests no registered stub answers with `replies` in order, then throws
    /// ``ScriptExhausted``.
    public convenience init(replies: [Reply]) {
        self.init { _, index in
            guard index < replies.count else { throw ScriptExhausted(replies: replies.count) }
            return replies[index]
        }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    /// The number of requests received so far.
    public var requestCount: Int { recorded.withLock { $0.count } }

    /// The requests no stub matched (and no script or closure answered), in order.
    public var unmatchedRequests: [RecordedRequest] { registry.withLock { $0.unmatched } }

    // MARK: Stubs

    /// Registers `stub`, after the stubs registered before it (the first that matches a request answers it).
    public func add(_ stub: Stub) {
        registry.withLock { registry in
            registry.stubs.append(stub)
            registry.matches.append(0)
        }
    }

    /// Registers a stub that answers every request meeting all of `conditions` (every request, when there are
    /// none) with `reply`.
    public func stub(_ conditions: StubCondition..., reply: Reply) {
        add(Stub(conditions, reply: reply))
    }

    /// Registers a stub that answers the requests meeting all of `conditions` with `replies` in order, the last
    /// one again once the others are used.
    public func stub(_ conditions: StubCondition..., replies: [Reply]) {
        add(Stub(conditions, replies: replies))
    }

    /// Removes every registered stub (what requests they matched stays recorded).
    public func removeAllStubs() {
        registry.withLock { registry in
            registry.stubs.removeAll()
            registry.matches.removeAll()
        }
    }

    /// The number of requests each registered stub has answered, in registration order.
    public var matchCounts: [Int] { registry.withLock { $0.matches } }

    // MARK: Sending

    /// Accepts every connection setting: a stub connects nowhere. The request keeps them
    /// (`TransportRequest.connection`, in ``requests``) for a test to read.
    public func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        nil
    }

    /// Records `request` and answers with the first matching stub's reply, else the script's or closure's.
    /// - Throws: the reply's error; ``NoMatchingStub`` for a request nothing answers; `TransportError` for a
    ///   ``StubFault`` before the head (`.connectionReset`, `.timedOut`); `NetworkError.invalidHeader(name:)` for
    ///   reply headers a server could not send.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let recordedRequest = try Self.receive(request)
        let body = recordedRequest.body
        recorded.withLock { $0.append(recordedRequest) }
        let reply = try await reply(to: request, recordedRequest)
        var answered = request
        // The body as read, so that its length is known for progress whatever it was (a stream of unknown length).
        if request.body != nil { answered.body = UploadSource(data: body) }
        return try await reply.response(to: answered, clock: clock)
    }

    /// The reply of the first stub that matches, else of the fallback, else ``NoMatchingStub``.
    private func reply(to request: TransportRequest, _ recorded: RecordedRequest) async throws -> Reply {
        let stubs = registry.withLock { $0.stubs }
        if let position = stubs.firstIndex(where: { $0.matches(recorded) }) {
            let count = registry.withLock { registry -> Int in
                // Stubs removed meanwhile leave the count alone.
                guard position < registry.matches.count else { return 0 }
                defer { registry.matches[position] += 1 }
                return registry.matches[position]
            }
            return try await stubs[position].reply(to: recorded, count)
        }
        if let fallback {
            let position = registry.withLock { registry in
                defer { registry.fallbacks += 1 }
                return registry.fallbacks
            }
            return try await fallback(request, position)
        }
        registry.withLock { $0.unmatched.append(recorded) }
        throw NoMatchingStub(method: request.method, url: LogRedaction.target(request.head), stubCount: stubs.count)
    }

    /// `request` as a server receives it: its body read whole, and, for a request with a body, the head and the body
    /// told sent at once (a head without a body is told sent when the answer comes, as URLSession and
    /// AsyncHTTPClient tell it: neither sees such a head written). The replay transport receives requests so too.
    static func receive(_ request: TransportRequest) throws -> RecordedRequest {
        let body = try read(request.body)
        if request.body != nil {
            request.onSent?(.head)
            request.onSent?(.body(bytes: Int64(body.count)))
        }
        var recorded = RecordedRequest(head: request.head, body: body, hasBody: request.body != nil)
        recorded.connection = request.connection
        return recorded
    }

    private static func read(_ body: UploadSource?) throws -> Data {
        guard let body else { return Data() }
        if let data = body.inMemoryData { return data }
        guard let reader = try? body.makeReader() else { throw NetworkError.uploadStreamConsumed }
        return try StreamReader.readAll(reader)
    }
}

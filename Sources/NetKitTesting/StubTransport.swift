#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import Synchronization

/// A transport for your tests: it answers from a script, records every request, and can fail or wait.
///
/// ```swift
/// let stub = StubTransport(replies: [.status(503), .json(#"{"id":1}"#)])
/// let manager = NetworkManager(baseURL: URL(string: "https://api.test")!, transport: stub)
/// let user = try await manager.send(GetUser(), accessToken: nil)
/// #expect(stub.requests.count == 2)
/// ```
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
            Reply(status: status, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own },
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

        /// This reply after `delay` of simulated latency.
        public func delayed(by delay: Duration) -> Reply {
            var copy = self
            copy.delay = delay
            return copy
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

        /// The method.
        public var method: HTTPMethod { head.method }
        /// The URL.
        public var url: URL? { head.url }
        /// A header's value (case-insensitive; repeated fields joined, see ``NetCore/HTTPHeaderFields/value(for:)``).
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

    private let handler: @Sendable (TransportRequest, Int) async throws -> Reply
    private let recorded = Mutex<[RecordedRequest]>([])

    /// A stub that computes each reply; the `Int` is the request's 0-based position.
    public init(_ handler: @escaping @Sendable (TransportRequest, Int) async throws -> Reply) {
        self.handler = handler
    }

    /// A stub that answers with `replies` in order, then throws ``ScriptExhausted``.
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

    /// Records `request` and answers with the script's reply.
    /// - Throws: the reply's error; ``NetworkError/invalidHeader(name:)`` for reply headers a server could not send.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let body = try Self.read(request.body)
        let index = recorded.withLock { requests in
            requests.append(RecordedRequest(head: request.head, body: body, hasBody: request.body != nil))
            return requests.count - 1
        }
        let reply = try await handler(request, index)
        if let delay = reply.delay { try await Task.sleep(for: delay) }
        if let error = reply.error { throw error }
        let head = HTTPResponseHead(statusCode: reply.status, headerFields: try HTTPHeaderFields(reply.headers))
        if request.body != nil { request.progress?.reportSent(Int64(body.count), of: Int64(body.count)) }
        let received = Int64(reply.chunks.reduce(0) { $0 + $1.count })
        request.progress?.reportReceived(received, of: received)
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            for chunk in reply.chunks { continuation.yield(chunk) }
            continuation.finish(throwing: reply.bodyError)
        }
        return TransportResponse(head: head, body: ResponseBody(stream))
    }

    private static func read(_ body: UploadSource?) throws -> Data {
        guard let body else { return Data() }
        if let data = body.inMemoryData { return data }
        guard let reader = try? body.makeReader() else { throw NetworkError.uploadStreamConsumed }
        return try StreamReader.readAll(reader)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// Server-sent events that stay connected for as long as they are iterated (the WHATWG standard's
/// `EventSource`): when a connection ends — cleanly or not — or fails transiently, the source connects again
/// after the server's `retry` interval (with backoff and jitter, see ``EventSourcePolicy``), sending
/// `Last-Event-ID` with the last event ID it saw. No wait is shorter than the policy's
/// ``EventSourcePolicy/minimumDelay`` (1 s by default), whatever `retry` says, and waits double while
/// connections keep failing or ending before their first event: no server can make the source reconnect in a loop.
///
/// ```swift
/// for try await event in manager.eventSource(Notifications(), accessToken: { store.token }) {
///     print(event.event, event.data)
/// }
/// ```
///
/// How it stops:
/// - `204 No Content` from the server ends the sequence cleanly (`nil`);
/// - any other non-2xx status throws, as `send` would (the request's `errorDecoder` result or `HTTPError`;
///   `NetworkError.unauthorized` after the one token refresh each connection may make);
/// - a response that is not `text/event-stream` throws `StreamingError.unexpectedContentType(_:)`;
/// - more failed attempts in a row than the policy allows throw ``EventSourceError/reconnectLimitReached(attempts:lastError:)``;
/// - errors that another attempt cannot mend (an invalid request, a failed token refresh, an event larger than
///   the limit) throw as they are;
/// - breaking out of the loop, or cancelling the task, closes the connection.
///
/// Each connection reads `accessToken` afresh (on the caller's actor) and takes the same road as `send` and
/// `stream`, 401 → refresh included; a reconnection after a refresh carries the renewed token. Made outside any
/// actor, the source reads `accessToken` once and, after a refresh, sends the refresher's current token (NetAuth's
/// `CurrentTokenProviding`) or ends with ``RenewedTokenUnavailable``: there, prefer a `tokenProvider`. Iterate it
/// once.
public struct EventSource: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent
    /// Why the source stopped.
    public typealias Failure = any Error

    /// Opens one connection that resumes after `lastEventID`.
    public typealias Connect = @Sendable (_ lastEventID: String?) async throws -> StreamingResponse

    private let connect: Connect
    /// When to reconnect and when to give up.
    public let policy: EventSourcePolicy
    /// The largest event accepted.
    public let maximumEventSize: Int
    private let clock: any Clock<Duration>
    private let randomUnit: @Sendable () -> Double
    /// How the caller sees the errors the source ends with (a facade may speak other types).
    package var presentation = ErrorPresentation.native

    /// Creates a source over `connect`, which the manager or the engine supplies.
    /// - Parameters:
    ///   - policy: When to reconnect and when to give up.
    ///   - maximumEventSize: The longest line and the largest event data accepted, in bytes.
    ///   - connect: Opens one connection that resumes after the last event ID it is given.
    ///   - clock: What reconnection waits are slept on (a test can pass one that does not sleep).
    ///   - randomUnit: A number in `0..<1` for each jittered wait.
    public init(
        policy: EventSourcePolicy = EventSourcePolicy(),
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize,
        clock: any Clock<Duration> = ContinuousClock(),
        randomUnit: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        connect: @escaping Connect
    ) {
        self.policy = policy
        self.maximumEventSize = maximumEventSize
        self.clock = clock
        self.randomUnit = randomUnit
        self.connect = connect
    }

    /// Starts iterating: the first connection is made by the first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    /// Iterates an ``EventSource``, connecting and reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let source: EventSource
        private var events: ServerSentEventSequence<ResponseBody>.AsyncIterator?
        /// When to reconnect, decided from what each connection did.
        private var backoff: ReconnectBackoff
        private var finished = false

        /// The last event ID seen, sent as `Last-Event-ID` when reconnecting.
        public private(set) var lastEventID: String?
        /// The server's last valid `retry`, if any.
        public var reconnectionTime: Duration? { backoff.reconnectionTime }
        /// How many connections have been opened so far.
        public var connections: Int { backoff.connections }

        init(source: EventSource) {
            self.source = source
            self.backoff = ReconnectBackoff(policy: source.policy)
        }

        /// The next event, connecting or reconnecting first if needed.
        public mutating func next() async throws -> ServerSentEvent? {
            try await next(isolation: nil)
        }

        /// The next event, staying on the caller's actor between network waits.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> ServerSentEvent? {
            do {
                return try await nextEvent(isolation: actor)
            } catch {
                throw source.presentation.present(error)
            }
        }

        private mutating func nextEvent(isolation actor: isolated (any Actor)?) async throws -> ServerSentEvent? {
            while !finished {
                if events == nil {
                    if backoff.connections > 0 { try await waitBeforeReconnecting(isolation: actor) }
                    do {
                        guard try await open(isolation: actor) else {
                            finished = true
                            return nil
                        }
                    } catch {
                        try checkRecoverable(error)
                        backoff.connectionFailed(error)
                        continue
                    }
                }
                do {
                    if let event = try await events?.next(isolation: actor) {
                        backoff.delivered()
                        lastEventID = events?.lastEventID
                        return event
                    }
                    backoff.connectionEnded(by: nil, serverRetry: endConnection())
                } catch {
                    let serverRetry = endConnection()
                    try checkRecoverable(error)
                    backoff.connectionEnded(by: error, serverRetry: serverRetry)
                }
            }
            return nil
        }

        /// Keeps the finished connection's last event ID, lets the connection go, and returns its last `retry`.
        private mutating func endConnection() -> Duration? {
            defer { events = nil }
            guard let events else { return nil }
            lastEventID = events.lastEventID
            return events.reconnectionTime
        }

        /// Sleeps the wait the backoff decides on, or ends the source when the policy allows no more attempts.
        private mutating func waitBeforeReconnecting(isolation actor: isolated (any Actor)?) async throws {
            switch backoff.reconnection(randomUnit: source.randomUnit()) {
            case .connectNow:
                return
            case .wait(let wait):
                try await source.clock.sleep(for: wait)
            case .giveUp(let error):
                finished = true
                throw error
            }
        }

        /// Connects; `false` when the server said 204.
        private mutating func open(isolation actor: isolated (any Actor)?) async throws -> Bool {
            backoff.connecting()
            let response = try await source.connect(lastEventID)
            if response.statusCode == 204 { return false }
            let contentType = response.headerFields.value(for: "Content-Type")
            guard let contentType, Self.isEventStream(contentType) else {
                throw StreamingError.unexpectedContentType(contentType)
            }
            events = ServerSentEventSequence(
                response.chunks, maximumEventSize: source.maximumEventSize, lastEventID: lastEventID
            )
            .makeAsyncIterator()
            return true
        }

        /// Throws errors another connection cannot mend; transient transport failures pass.
        private func checkRecoverable(_ error: any Error) throws {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            if let error = error as? any TransportErrorConvertible, error.transportError.isTransient { return }
            throw error
        }

        private static func isEventStream(_ contentType: String) -> Bool {
            contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                == "text/event-stream"
        }
    }
}

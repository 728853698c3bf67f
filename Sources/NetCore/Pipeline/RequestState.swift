import NetKitLock
import Synchronization

/// The state one request's stages share: attempt numbers and metrics.
package final class RequestState: Sendable {
    private struct Values {
        var metrics: RequestMetrics
        var nextReason: PluginContext.Reason = .initial
        /// Why the last attempt was made, for the context of the hooks that end the request.
        var lastReason: PluginContext.Reason = .initial
        var pluginRetries = 0
    }

    /// A number unique to the request within the process.
    package let number: UInt64
    /// Whether the request is a `stream`.
    package let isStreaming: Bool
    /// When the request started (``RequestMetrics/start``), readable without the lock.
    package let start: MonotonicInstant
    private let values: Lock<Values>

    private static let counter = Atomic<UInt64>(0)

    package init(isStreaming: Bool) {
        self.number = Self.counter.add(1, ordering: .relaxed).newValue
        self.isStreaming = isStreaming
        let metrics = RequestMetrics()
        self.start = metrics.started
        self.values = Lock(Values(metrics: metrics))
    }

    /// The context of `prepare`.
    var preparationContext: PluginContext {
        PluginContext(requestNumber: number, attempt: 0, reason: .initial, isStreaming: isStreaming, start: start)
    }

    /// The context of `didFinish` and `wasCancelled`: the request's number and start, with the last attempt's number
    /// and reason (attempt 0 when none was made).
    package var endContext: PluginContext {
        values.withLock { values in
            PluginContext(
                requestNumber: number, attempt: values.metrics.attempts, reason: values.lastReason,
                isStreaming: isStreaming, start: start)
        }
    }

    /// Counts a new attempt of `bytes` body bytes and returns its context.
    func beginAttempt(sending bytes: Int64?) -> PluginContext {
        values.withLock { values in
            values.metrics.attempts += 1
            values.metrics.bytesSent += bytes ?? 0
            let reason = values.nextReason
            values.nextReason = .initial
            values.lastReason = reason
            return PluginContext(
                requestNumber: number, attempt: values.metrics.attempts, reason: reason, isStreaming: isStreaming,
                start: .now)
        }
    }

    /// Counts a new attempt of `bytes` body bytes that no plugin hook will see.
    func countAttempt(sending bytes: Int64?) {
        values.withLock { values in
            values.metrics.attempts += 1
            values.metrics.bytesSent += bytes ?? 0
            values.lastReason = values.nextReason
            values.nextReason = .initial
        }
    }

    /// Says why the next attempt will be made.
    func nextAttempt(because reason: PluginContext.Reason) {
        values.withLock { $0.nextReason = reason }
    }

    /// Notes a plugin's request for another attempt; `false` once the limit is spent.
    func allowPluginRetry() -> Bool {
        values.withLock { values in
            guard values.pluginRetries < PluginVerdict.maximumRetries else { return false }
            values.pluginRetries += 1
            return true
        }
    }

    func recordHead(at instant: MonotonicInstant) {
        values.withLock { $0.metrics.headArrival = instant }
    }

    func recordReceived(_ bytes: Int) {
        values.withLock { $0.metrics.bytesReceived += Int64(bytes) }
    }

    func recordRetryWait(_ wait: Duration) {
        values.withLock { $0.metrics.retryWaits.append(wait) }
    }

    /// Adds what the cache did to the request's ``RequestMetrics/cacheEvents``.
    func recordCache(_ events: [CacheEvent]) {
        guard !events.isEmpty else { return }
        values.withLock { $0.metrics.cacheEvents.append(contentsOf: events) }
    }

    /// Marks the end and returns the final metrics.
    package func finish() -> RequestMetrics {
        values.withLock { values in
            if values.metrics.ended == nil { values.metrics.ended = .now }
            return values.metrics
        }
    }
}

/// One phase of one request, as NetKit saw it: what a ``RequestObserver`` is told, in order, while the request runs.
///
/// Every event carries the request's number (the ``PluginContext/requestNumber`` its plugins see) and the instant it
/// happened on the continuous clock, so that a request's events can be put side by side as a timing waterfall:
///
/// ```swift
/// struct Waterfall: RequestObserver {
///     func observe(_ event: RequestEvent) {
///         print("#\(event.requestNumber) \(event.time) \(event.kind)")
///     }
/// }
/// ```
///
/// The events of one request follow the grammar Docs/Observability.md writes out: the call opens with
/// ``Kind/callStart(method:origin:)`` and closes with exactly one ``Kind/callEnd(status:)`` or
/// ``Kind/callFailed(reason:)``; between them, every ``Kind/attemptStart(attempt:reason:)`` is closed by exactly one
/// ``Kind/attemptEnd(attempt:status:)`` or ``Kind/attemptFailed(attempt:reason:)``, every ``Kind/queued`` by one
/// ``Kind/dequeued``, every ``Kind/credentialRenewalStart`` by one ``Kind/credentialRenewalEnd(renewed:)``.
public struct RequestEvent: Sendable, Equatable {
    /// The request the event belongs to: unique within the process, the same in every event of the request and in
    /// every plugin hook (``PluginContext/requestNumber``).
    public let requestNumber: UInt64
    /// What happened.
    public let kind: Kind
    /// When it happened, on the continuous clock (monotonic: a waterfall's offsets are differences of these).
    public var time: ContinuousClock.Instant { instant.instant }
    /// ``time``, stored as a value of known size (see ``MonotonicInstant``).
    package let instant: MonotonicInstant

    /// An event of request `requestNumber` at `time`.
    public init(requestNumber: UInt64, kind: Kind, time: ContinuousClock.Instant) {
        self.init(requestNumber: requestNumber, kind: kind, instant: MonotonicInstant(time))
    }

    package init(requestNumber: UInt64, kind: consuming Kind, instant: MonotonicInstant) {
        self.requestNumber = requestNumber
        self.kind = kind
        self.instant = instant
    }
}

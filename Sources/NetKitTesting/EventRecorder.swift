import NetCore
import NetKitLock

/// A `RequestObserver` that keeps every event it is told, for a test to read and check against the grammar
/// (``RequestEventGrammar``).
///
/// ```swift
/// let recorder = EventRecorder()
/// var configuration = RequestExecutor.Configuration(plugins: [recorder])
/// // … send requests …
/// #expect(RequestEventGrammar.violations(in: recorder.events).isEmpty)
/// #expect(recorder.kindNames(of: recorder.requestNumbers[0]).first == "call_start")
/// ```
///
/// It keeps events until ``removeAll()``: a test's own, not a production log.
public final class EventRecorder: RequestObserver {
    private let recorded = Lock<[RequestEvent]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Keeps `event`.
    public func observe(_ event: RequestEvent) {
        recorded.withLock { $0.append(event) }
    }

    /// Every event told so far, in the order told.
    public var events: [RequestEvent] { recorded.withLock { $0 } }

    /// The numbers of the requests seen, in the order of their first event.
    public var requestNumbers: [UInt64] {
        var seen = Set<UInt64>()
        return events.compactMap { seen.insert($0.requestNumber).inserted ? $0.requestNumber : nil }
    }

    /// The events of request `number`, in order.
    public func events(of number: UInt64) -> [RequestEvent] {
        events.filter { $0.requestNumber == number }
    }

    /// The fixed names (`RequestEvent.Kind.name`) of the events of request `number`, in order.
    public func kindNames(of number: UInt64) -> [String] {
        events(of: number).map(\.kind.name)
    }

    /// Forgets every event.
    public func removeAll() {
        recorded.withLock { $0.removeAll() }
    }
}

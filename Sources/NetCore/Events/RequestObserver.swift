/// A plugin that is told every phase of every request it runs for (``RequestEvent``): the one way to see where a
/// request spent its time, the same on every transport.
///
/// An observer is registered as any plugin is (the engine's or `NetworkManager`'s plugins, or a request's own) and
/// may implement the plugin hooks too. Requests whose plugins hold no observer make no events at all.
///
/// ```swift
/// final class Timings: RequestObserver {
///     let events = Mutex<[RequestEvent]>([])
///     func observe(_ event: RequestEvent) { events.withLock { $0.append(event) } }
/// }
/// ```
///
/// `observe` is called synchronously on the request's road, as each phase happens, one event at a time per request
/// (requests running at once call it at once from different threads): keep it short, and hand anything slow to a
/// task or a queue of your own. An event happens after the one before it of the same request; an observer that
/// copies the events somewhere gets them in order.
public protocol RequestObserver: Plugin {
    /// Told one event of a request.
    func observe(_ event: RequestEvent)
}

/// One event of a `text/event-stream`, as the WHATWG HTML standard's event-stream interpretation
/// dispatches it.
///
/// A value type so that tests compare events with `==` and apps can keep them in sets and diffs.
///
/// ```swift
/// for try await event in response.events() where event.event == "update" {
///     apply(try JSONDecoder().decode(Update.self, from: Data(event.data.utf8)))
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The last event ID in effect when the event was dispatched: set by an `id` field in this block or an
    /// earlier one (an empty `id` field sets it to `""`), `nil` while the stream has sent none.
    ///
    /// This is what a reconnecting client sends back as `Last-Event-ID`.
    public var id: String?
    /// The event type; `"message"` when the block names none (or names the empty string).
    public var event: String
    /// The block's `data` lines joined with `"\n"` (no trailing line feed).
    public var data: String
    /// The reconnection time a valid `retry` field in this event's block asked for, if any.
    public var retry: Duration?

    /// Creates an event; the defaults are those of a block holding nothing but `data:`.
    public init(id: String? = nil, event: String = "message", data: String = "", retry: Duration? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}

import OpenAPIRuntime

/// The `/events` stream: one event, then a wait on the ledger's ``EventGate`` (at most ``gateLimit``), then a
/// second event, then the end. When the gate does not open in time the second event is `timeout` instead, so a
/// client that held the first event back until the body ended is caught.
struct GatedEvents: AsyncSequence, Sendable {
    typealias Element = ServerSentEvent

    /// How long the stream waits for the client to confirm the first event.
    static let gateLimit = Duration.seconds(10)

    let gate: EventGate

    struct AsyncIterator: AsyncIteratorProtocol {
        let gate: EventGate
        var sent = 0

        mutating func next() async throws -> ServerSentEvent? {
            sent += 1
            switch sent {
            case 1:
                return ServerSentEvent(id: "1", event: "created", data: "Write the example")
            case 2:
                guard await gate.wait(atMost: GatedEvents.gateLimit) else {
                    return ServerSentEvent(id: "2", event: "timeout", data: "the first event was not confirmed")
                }
                return ServerSentEvent(id: "2", event: "created", data: "Ship it")
            default:
                return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(gate: gate) }
}

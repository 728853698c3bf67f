import Foundation
import OpenAPIRuntime
import Testing
import TodosAPI
import TodosServer

@Suite("Server-sent events", .timeLimit(.minutes(1)))
struct EventStreamTests {
    @Test("events are handed over as they arrive: the server sends the second only once the first was received")
    func eventsArriveOneByOne() async throws {
        try await LocalTodosServer.run { baseURL, ledger in
            let client = TodosClients.client(baseURL: baseURL)
            let events = try await client.watchEvents().ok.body.textEventStream.asDecodedServerSentEvents()

            var received: [ServerSentEvent] = []
            for try await event in events {
                received.append(event)
                // The server waits on this gate (at most 10 s) before its second event: had the transport held the
                // first back until the body ended, the second would be the server's `timeout` event.
                if received.count == 1 { ledger.eventGate.open() }
                if received.count == 3 { break }
            }

            #expect(received.map(\.data) == ["Write the example", "Ship it"])
            #expect(received.map(\.event) == ["created", "created"])
            #expect(received.map(\.id) == ["1", "2"])
        }
    }
}

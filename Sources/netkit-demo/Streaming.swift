import Foundation
import NetKit

struct TodoFeed: NetworkRequest {
    struct Change: Decodable, Sendable {
        let id: Int
        let title: String
    }
    typealias Response = EmptyResponse
    var path: String { "/todos/feed" }
    var method: HTTPMethod { .get }
}

struct TodoEvents: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/todos/events" }
    var method: HTTPMethod { .get }
}

extension Demo {
    /// Bodies read as they arrive: NDJSON values one by one, then server-sent events across a dropped connection.
    func streaming() async throws {
        Output.section("An NDJSON stream, printed as it arrives")
        var started = ContinuousClock.now
        let feed = try await manager.stream(TodoFeed())
        for try await change in feed.ndjson(as: TodoFeed.Change.self) {
            Output.line("+\(Output.milliseconds(ContinuousClock.now - started))  #\(change.id) \(change.title)")
        }
        Output.line("server: \(server.sinceLastLook().summary)")

        Output.section("Server-sent events, reconnecting after a drop")
        started = ContinuousClock.now
        for try await event in manager.eventSource(TodoEvents()) {
            Output.line(
                "+\(Output.milliseconds(ContinuousClock.now - started))  id \(event.id ?? "-")  \(event.event): \(event.data)"
            )
        }
        Output.line(
            "the first connection broke after id 2; the second sent Last-Event-ID: 2 and resumed; a 204 ended the stream"
        )
        Output.line("server: \(server.sinceLastLook().summary)")
    }
}

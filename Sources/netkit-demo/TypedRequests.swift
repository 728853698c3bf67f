import Foundation
import NetKit

struct Todo: Codable, Sendable {
    let id: Int
    let title: String
    let done: Bool
}

struct ListTodos: NetworkRequest {
    typealias Response = [Todo]
    var path: String { "/todos" }
    var method: HTTPMethod { .get }
}

struct CreateTodo: NetworkRequest {
    typealias Response = Todo
    let title: String
    var path: String { "/todos" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(encodable: ["title": title]) }
}

extension Demo {
    /// A request is a type: its response type, path, method and body; `send` returns the decoded value.
    func typedRequests() async throws {
        Output.section("Typed GET and POST")
        let todos = try await manager.send(ListTodos())
        Output.line(
            "GET /todos → [Todo]: \(todos.map { "#\($0.id) \($0.title)\($0.done ? " ✓" : "")" }.joined(separator: ", "))"
        )
        let created = try await manager.send(CreateTodo(title: "Celebrate"))
        Output.line("POST /todos {\"title\":\"Celebrate\"} → Todo #\(created.id) \"\(created.title)\"")
        Output.line("server: \(server.sinceLastLook().summary)")
    }
}

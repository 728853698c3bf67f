import Foundation
import Testing
import TodosAPI
import TodosServer

@Suite("JSON operations", .timeLimit(.minutes(1)))
struct JSONOperationTests {
    @Test("createTodo answers 201 with the stored to-do; listTodos returns them in order")
    func createAndList() async throws {
        try await LocalTodosServer.run { baseURL, ledger in
            let recorder = OperationRecorder()
            let client = TodosClients.client(baseURL: baseURL, plugins: [recorder])
            #expect(try await client.listTodos().ok.body.json == [])

            let first = try await client.createTodo(body: .json(.init(title: "Write the example")))
            #expect(try first.created.body.json == .init(id: 1, title: "Write the example", done: false))
            let second = try await client.createTodo(body: .json(.init(title: "Ship it")))
            #expect(try second.created.body.json.id == 2)

            let listed = try await client.listTodos().ok.body.json
            #expect(listed.map(\.title) == ["Write the example", "Ship it"])
            #expect(listed == ledger.todos)
            // The generated client names each operation; NetKit's plugins see the name on every request.
            #expect(recorder.recorded == ["listTodos", "createTodo", "createTodo", "listTodos"])
        }
    }

    @Test("a documented 401 reaches the generated client as its own case")
    func documentedErrorStatus() async throws {
        try await LocalTodosServer.run { baseURL, ledger in
            let client = TodosClients.client(baseURL: baseURL)
            let output = try await client.getProfile()
            guard case .unauthorized = output else {
                Issue.record("expected .unauthorized, got \(output)")
                return
            }
            #expect(ledger.counts.rejectedProfileRequests == 1)
        }
    }
}

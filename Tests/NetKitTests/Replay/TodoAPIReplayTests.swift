import Foundation
import NetKit
import NetKitTesting
import Testing

/// A Todo API client on NetKit, tested against recorded HAR fixtures: every test replays its own fixture
/// (`Fixtures/TodoAPIReplayTests/<Suite>/<test>.har`) and never touches the network, so the tests run in parallel.
///
/// To record the fixtures again (against ``TodoServer`` on 127.0.0.1, credentials redacted on the way to disk):
/// `NETKIT_HAR_MODE=rerecord .build/debug/NetKitPackageTests.xctest --testing-library swift-testing --filter
/// TodoAPIReplay`; ``FixtureSecretsTests`` then checks that no fixture holds any of ``TodoSecrets``.
@Suite(
    .harFixtures(
        in: TodoFixtures.directory, mode: .replay, redaction: TodoSecrets.redaction, matchers: [.method, .path],
        live: { TodoServer.liveTransport() }))
struct TodoAPIReplayTests {
    /// Reading, writing and decoding todos.
    @Suite struct Todos {
        @Test("GET /todos decodes three todos, sent with the bearer token")
        func listsTodos() async throws {
            let client = try todoClient()
            let todos = try await client.send(TodoAPI.ListTodos())
            #expect(todos.map(\.id) == [1, 2, 3])
            #expect(todos.first == TodoAPI.Todo(id: 1, title: "Write docs", done: true, tags: ["docs"]))
            #expect(client.sent.all.map { $0.header("Authorization") } == ["Bearer \(TodoSecrets.accessToken)"])
        }

        @Test("GET /todos/2 decodes one todo with its caching headers")
        func getsOneTodo() async throws {
            let client = try todoClient()
            let response = try await client.response(for: TodoAPI.GetTodo(id: 2))
            #expect(response.statusCode == 200)
            #expect(response.value == TodoAPI.Todo(id: 2, title: "Ship 1.0", done: false, tags: ["release", "urgent"]))
            #expect(response.headerFields.value(for: "Cache-Control") == "private, max-age=60")
        }

        @Test("POST /todos sends the new todo as JSON and decodes the 201")
        func createsTodoWithJSONBody() async throws {
            let client = try todoClient()
            let response = try await client.response(
                for: TodoAPI.CreateTodo(todo: TodoAPI.NewTodo(title: "Buy milk", tags: ["home"])))
            #expect(response.statusCode == 201)
            #expect(response.value == TodoAPI.Todo(id: 4, title: "Buy milk", done: false, tags: ["home"]))
            #expect(response.headerFields.value(for: "Location") == "/todos/4")
            let sent = try #require(client.sent.all.first)
            #expect(sent.method == "POST")
            #expect(sent.header("Content-Type") == "application/json")
            let body = try JSONDecoder().decode(TodoAPI.NewTodo.self, from: try #require(sent.body))
            #expect(body.title == "Buy milk" && body.tags == ["home"])
        }

        @Test("PATCH /todos/2 sends only the changed field")
        func updatesTodoWithPatch() async throws {
            let client = try todoClient()
            let todo = try await client.send(TodoAPI.UpdateTodo(id: 2, patch: TodoAPI.TodoPatch(done: true)))
            #expect(todo == TodoAPI.Todo(id: 2, title: "Ship 1.0", done: true, tags: ["release", "urgent"]))
            let sent = try #require(client.sent.all.first)
            #expect(sent.method == "PATCH")
            #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == #"{"done":true}"#)
        }

        @Test("DELETE /todos/3 answers 204, an EmptyResponse")
        func deletesTodo() async throws {
            let client = try todoClient()
            let response = try await client.response(for: TodoAPI.DeleteTodo(id: 3))
            #expect(response.statusCode == 204)
            #expect(client.sent.all.map(\.method) == ["DELETE"])
        }

        @Test("HEAD /todos reads the count from X-Total-Count")
        func countsTodosWithHead() async throws {
            let client = try todoClient()
            let status = try await client.send(TodoAPI.CountTodos())
            #expect(status.statusCode == 200)
            #expect(status.value(forHeader: "X-Total-Count") == "3")
            #expect(client.sent.all.map(\.method) == ["HEAD"])
        }

        @Test("query parameters and repeated query items are encoded in a stable order")
        func filtersWithQueryParameters() async throws {
            let client = try todoClient()
            let todos = try await client.send(
                TodoAPI.ListTodos(parameters: ["state": "open", "sort": "title"], tags: ["urgent", "team"]))
            #expect(todos.map(\.title) == ["Plan the retro", "Ship 1.0"])
            #expect(client.sent.all.map(\.query) == ["sort=title&state=open&tag=urgent&tag=team"])
        }

        @Test("a fluent request percent-encodes reserved characters of a query value")
        func encodesReservedCharactersInQuery() async throws {
            let client = try todoClient()
            let result = try await client.manager.request("/todos/search")
                .query("q", "docs & retro = 2+1")
                .accessToken(TodoSecrets.accessToken)
                .decode(TodoAPI.SearchResult.self)
            #expect(result == TodoAPI.SearchResult(query: "docs & retro = 2+1", matches: [1, 3]))
            #expect(client.sent.all.map(\.query) == ["q=docs%20%26%20retro%20%3D%202%2B1"])
        }

        @Test("responseKeyPath decodes the todos inside the envelope")
        func decodesEnvelopeAtKeyPath() async throws {
            let client = try todoClient()
            let todos = try await client.send(TodoAPI.TodoSummary())
            #expect(todos.map(\.title) == ["Write docs", "Ship 1.0", "Plan the retro"])
        }

        @Test("a String response is decoded in the charset Content-Type names (ISO-8859-1)")
        func decodesLatin1Text() async throws {
            let client = try todoClient()
            let text = try await client.send(TodoAPI.MessageOfTheDay())
            #expect(text == "Café ouvert à 9h, bon appétit !")
        }

        @Test("a Data response hands over bytes that are not text unchanged")
        func readsBinaryBody() async throws {
            let client = try todoClient()
            let bytes = try await client.send(TodoAPI.Avatar(id: 1))
            #expect(bytes == TodoAPI.avatarBytes)
            #expect(bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        }

        @Test("EKNetwork's completion handler delivers the decoded todo once")
        func deliversThroughCompletionHandler() async throws {
            let client = try todoClient()
            let result = await withCheckedContinuation { continuation in
                client.manager.send(TodoAPI.GetTodo(id: 1), accessToken: { TodoSecrets.accessToken }) { result in
                    continuation.resume(returning: result)
                }
            }
            #expect(try result.get().title == "Write docs")
        }

        @Test("a multipart form uploads a field and a file, with progress to the end")
        func uploadsMultipartAttachment() async throws {
            let client = try todoClient()
            var form = MultipartFormData(boundary: "todo-attachment-boundary")
            form.addField(name: "caption", value: "Receipt")
            form.addPart(
                name: "file", data: Data("milk 1.29\neggs 2.49\n".utf8), mimeType: "text/plain",
                filename: "notes.txt")
            let progress = NetworkProgress()
            let receipt = try await client.send(TodoAPI.UploadAttachment(id: 1, form: form, progress: progress))
            #expect(
                receipt == TodoAPI.AttachmentReceipt(parts: 2, fileName: "notes.txt", fileBytes: 20, caption: "Receipt")
            )
            #expect(progress.isFinished)
            #expect(
                client.sent.all.first?.header("Content-Type")
                    == "multipart/form-data; boundary=todo-attachment-boundary")
        }

        @Test("a configuration's default headers and snake_case decoder apply to every request")
        func appliesConfigurationDefaults() async throws {
            let client = try todoClient { configuration in
                configuration.defaultHeaders = ["X-Client": "todo-ios/2.1"]
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                configuration.defaultDecoder = decoder
            }
            let details = try await client.send(TodoAPI.GetTodoDetails(id: 1))
            #expect(
                details
                    == TodoAPI.TodoDetails(
                        id: 1, title: "Write docs", createdAt: "2024-05-01T09:00:00Z", assigneeName: "Ann",
                        requestedBy: "todo-ios/2.1"))
            #expect(client.sent.all.first?.header("X-Client") == "todo-ios/2.1")
        }
    }

    /// Lists in pages.
    @Suite struct Paging {
        @Test("pages(of:next: .linkHeader) follows relative Link headers to the last page")
        func followsLinkHeaders() async throws {
            let client = try todoClient()
            var pages: [[Int]] = []
            for try await page in client.manager.pages(
                of: TodoAPI.TodoPage(), next: .linkHeader, tokenProvider: { TodoSecrets.accessToken })
            {
                pages.append(page.value.map(\.id))
            }
            #expect(pages == [[1, 2, 3], [4, 5, 6], [7]])
            #expect(client.sent.to("/todos/pages").map(\.query) == ["page=1", "page=2", "page=3"])
        }

        @Test("a cursor closure asks for the next page until the cursor is null")
        func followsCursor() async throws {
            let client = try todoClient()
            let pages = client.manager.pages(of: TodoAPI.TodoFeed(), tokenProvider: { TodoSecrets.accessToken }) {
                page in
                page.value.nextCursor.map { TodoAPI.TodoFeed(cursor: $0) }
            }
            var ids: [[Int]] = []
            for try await page in pages {
                ids.append(page.value.items.map(\.id))
            }
            #expect(ids == [[1, 2], [3]])
            #expect(client.sent.all.map(\.query) == [nil, "cursor=c-2"])
        }
    }

    /// What failures surface as.
    @Suite struct Errors {
        @Test("a 404 is an HTTPError with the status and the API's body")
        func missingTodoIsHTTPError() async throws {
            let client = try todoClient()
            let error = try await #require(throws: HTTPError.self) {
                try await client.send(TodoAPI.GetTodo(id: 999))
            }
            #expect(error.statusCode == 404)
            let problem = try JSONDecoder().decode(TodoAPI.Problem.self, from: error.data)
            #expect(problem == TodoAPI.Problem(code: "not_found", message: "Todo 999 does not exist"))
        }

        @Test("a 422 decodes into the error model as a ServerError")
        func validationFailureDecodesServerError() async throws {
            let client = try todoClient { $0.errorModel = TodoAPI.Problem.self }
            let error = try await #require(throws: ServerError.self) {
                try await client.send(TodoAPI.CreateTodo(todo: TodoAPI.NewTodo(title: "")))
            }
            #expect(error.statusCode == 422)
            #expect(error.model(as: TodoAPI.Problem.self)?.code == "title_empty")
        }

        @Test("a request's errorDecoder turns a 409 into the client's own error")
        func conflictUsesErrorDecoder() async throws {
            let client = try todoClient()
            await #expect(throws: TodoAPI.Conflict(conflictID: 2)) {
                try await client.send(TodoAPI.UpdateTodo(id: 3, patch: TodoAPI.TodoPatch(title: "Ship 1.0")))
            }
        }

        @Test("a 401 with no token refresher is NetworkError.unauthorized, sent once")
        func expiredTokenWithoutRefresherIsUnauthorized() async throws {
            let client = try todoClient(accessToken: TodoSecrets.expiredAccessToken)
            await #expect(throws: NetworkError.unauthorized) {
                try await client.send(TodoAPI.GetProfile())
            }
            #expect(client.sent.all.count == 1)
        }
    }
}

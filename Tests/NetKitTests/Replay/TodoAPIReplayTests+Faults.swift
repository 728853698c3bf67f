import Foundation
import NetKit
import NetKitTesting
import Testing

extension TodoAPIReplayTests {
    /// Failures a server or network causes, injected into the replay (``HARReplayTransport/fault(_:when:)``) so the
    /// client's retry and timeout handling runs without a server. While a fixture records, each test makes its
    /// request against the real server only.
    @Suite struct Faults {
        @Test("a reset before the head is retried once by the engine alone (a transparent retry)")
        func resetBeforeHeadIsRetriedTransparently() async throws {
            let client = try todoClient()
            let injected = client.injectOnce(.resetBeforeHead, intoFirst: .get, "/todos")
            let response = try await client.response(for: TodoAPI.ListTodos())
            #expect(response.value.count == 3)
            #expect(response.metrics.transparentRetries == (injected ? 1 : 0))
            #expect(client.sent.all.count == (injected ? 2 : 1))
        }

        @Test("a reset before the head of a POST without an Idempotency-Key fails, and is not sent again")
        func resetPostWithoutKeyFails() async throws {
            let client = try todoClient()
            let create = TodoAPI.CreateTodo(todo: TodoAPI.NewTodo(title: "Call the plumber"))
            guard client.injectOnce(.resetBeforeHead, intoFirst: .post, "/todos") else {
                #expect(try await client.send(create).id == 4)
                return
            }
            let error = try await #require(throws: URLError.self) { try await client.send(create) }
            #expect(error.code == .networkConnectionLost)
            #expect(client.sent.all.count == 1)
        }

        @Test("a server that never answers fails the request at its timeout")
        func stallTimesOutRequest() async throws {
            let client = try todoClient()
            var request = client.manager.request("/todos").accessToken(TodoSecrets.accessToken)
            guard client.injectOnce(.stallAtStart(.seconds(3_600)), intoFirst: .get, "/todos") else {
                #expect(try await request.decode([TodoAPI.Todo].self).count == 3)
                return
            }
            request = request.timeout(.milliseconds(200))
            let error = try await #require(throws: URLError.self) { try await request.decode([TodoAPI.Todo].self) }
            #expect(error.code == .timedOut)
        }

        @Test("a body cut mid-way is retried under the RetryPolicy and decodes whole")
        func bodyCutMidwayIsRetried() async throws {
            let client = try todoClient()
            let injected = client.injectOnce(.closeMidBody(afterBytes: 40), intoFirst: .get, "/todos")
            let response = try await client.manager.request("/todos")
                .accessToken(TodoSecrets.accessToken)
                .retry(RetryPolicy(maxRetryCount: 2, delay: 0.01))
                .response()
            let todos = try JSONDecoder().decode([TodoAPI.Todo].self, from: response.value)
            #expect(todos.map(\.id) == [1, 2, 3])
            #expect(response.metrics.attempts == (injected ? 2 : 1))
        }

        @Test("an NDJSON stream cut mid-line ends its loop with an error after the whole lines")
        func ndjsonCutMidwayThrowsAfterLines() async throws {
            let client = try todoClient()
            let cut = TodoAPI.exportLines[0].utf8.count + 10
            let injected = client.injectOnce(.closeMidBody(afterBytes: cut), intoFirst: .get, "/todos/export")
            let response = try await client.stream(TodoAPI.ExportTodos())
            var ids: [Int] = []
            do {
                for try await todo in response.ndjson(as: TodoAPI.Todo.self) {
                    ids.append(todo.id)
                }
                #expect(!injected, "a cut body must not end cleanly")
            } catch let error as URLError {
                #expect(injected && error.code == .networkConnectionLost)
            }
            #expect(ids == (injected ? [1] : [1, 2, 3, 4]))
        }

        @Test("server-sent events split into 5-byte chunks parse the same")
        func eventsSurviveTrickledChunks() async throws {
            let client = try todoClient()
            client.injectOnce(.trickle(bytes: 5, every: .zero), intoFirst: .get, "/todos/events")
            let response = try await client.stream(TodoAPI.TodoEvents())
            var events: [ServerSentEvent] = []
            for try await event in response.events() {
                events.append(event)
            }
            #expect(events.map(\.id) == ["1", "2", "3"])
            #expect(events.map(\.data).last == #"{"id":4}"#)
        }

        @Test("a download cut mid-way asks for the rest with Range and If-Range, and completes")
        func downloadResumesAfterCut() async throws {
            let client = try todoClient()
            let injected = client.injectOnce(.closeMidBody(afterBytes: 100), intoFirst: .get, "/exports/todos.csv")
            let folder = try Streaming.scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("todos.csv")
            let session = client.session
            _ = try await client.manager.download(
                TodoAPI.TodosCSV(), to: destination, accessToken: { session.accessToken })
            #expect(try Data(contentsOf: destination) == TodoAPI.csvBody)
            let sent = client.sent.all
            #expect(sent.count == (injected ? 2 : 1))
            if injected {
                #expect(sent.last?.header("Range") == "bytes=100-")
                #expect(sent.last?.header("If-Range") == #""csv-3""#)
            }
        }
    }
}

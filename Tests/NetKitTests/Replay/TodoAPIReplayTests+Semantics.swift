import Foundation
import NetKit
import NetKitTesting
import Testing

extension TodoAPIReplayTests {
    /// Caching, redirects and retries: HTTP's rules, played by NetKit's engine over the fixture.
    @Suite struct Semantics {
        @Test("an ETag is revalidated: the 304 answers with the stored note")
        func revalidatesWithETag() async throws {
            let client = try todoClient { $0.responseCache = ResponseCache(maximumBytes: 1 << 20) }
            let first = try await client.send(TodoAPI.PinnedNote())
            let second = try await client.response(for: TodoAPI.PinnedNote())
            #expect(first == TodoAPI.Note(id: 7, text: "Water the plants"))
            #expect(second.value == first && second.statusCode == 200)
            #expect(client.sent.all.map { $0.header("If-None-Match") } == [nil, #""note-7""#])
        }

        @Test("a fresh response (max-age) answers again without the network")
        func freshCacheAnswersWithoutNetwork() async throws {
            let client = try todoClient { $0.responseCache = ResponseCache(maximumBytes: 1 << 20) }
            let first = try await client.send(TodoAPI.GetTodo(id: 2))
            let second = try await client.send(TodoAPI.GetTodo(id: 2))
            #expect(first == second)
            #expect(client.sent.all.count == 1)
        }

        @Test("a POST to a cached URL invalidates it: the next GET goes to the network")
        func unsafeRequestInvalidatesCache() async throws {
            let client = try todoClient { $0.responseCache = ResponseCache(maximumBytes: 1 << 20) }
            let before = try await client.send(TodoAPI.GroceryList())
            let added = try await client.send(TodoAPI.AddGrocery(item: "Bread"))
            let after = try await client.send(TodoAPI.GroceryList())
            #expect(before.items == ["Milk", "Eggs"])
            #expect(added.items == ["Milk", "Eggs", "Bread"])
            #expect(after == added)
            #expect(client.sent.all.map(\.method) == ["GET", "POST", "GET"])
        }

        @Test("a 301 is followed on the same origin, with the token")
        func followsRedirect() async throws {
            let client = try todoClient()
            let response = try await client.response(for: TodoAPI.LegacyTodo(id: 2))
            #expect(response.value.id == 2)
            #expect(response.url?.path() == "/todos/2")
            #expect(client.sent.all.map(\.path) == ["/v1/todos/2", "/todos/2"])
            #expect(client.sent.all.allSatisfy { $0.header("Authorization") == "Bearer \(TodoSecrets.accessToken)" })
        }

        @Test("a 503 with Retry-After: 1 is retried after at least a second")
        func retriesAfter503HonouringRetryAfter() async throws {
            let client = try todoClient()
            let response = try await client.response(for: TodoAPI.WeeklyReport())
            #expect(response.value == TodoAPI.Report(completed: 5, opened: 3))
            #expect(response.metrics.attempts == 2)
            #expect(response.metrics.retryWaits.count == 1)
            #expect(response.metrics.retryWaits.allSatisfy { $0 >= .seconds(1) })
        }

        @Test("a POST with an Idempotency-Key is retried after a 503, with the same key")
        func retriesPostWithIdempotencyKey() async throws {
            let client = try todoClient()
            let key = "import-2024-05-01-7d9e"
            let response = try await client.response(for: TodoAPI.ImportTodos(key: key))
            #expect(response.value == TodoAPI.ImportResult(imported: 2))
            #expect(response.metrics.attempts == 2)
            #expect(client.sent.all.map { $0.header("Idempotency-Key") } == [key, key])
        }

        @Test("a POST without an Idempotency-Key is never repeated")
        func doesNotRetryPostWithoutKey() async throws {
            let client = try todoClient()
            let error = try await #require(throws: HTTPError.self) {
                try await client.send(TodoAPI.BulkCreate())
            }
            #expect(error.statusCode == 503)
            #expect(client.sent.all.count == 1)
        }
    }
}

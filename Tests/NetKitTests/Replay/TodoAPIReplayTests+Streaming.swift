import Foundation
import NetKit
import NetKitTesting
import Testing

extension TodoAPIReplayTests {
    /// Bodies read as they arrive, and downloads to files.
    @Suite struct Streaming {
        @Test("server-sent events arrive in order with their ids and types; comments are skipped")
        func serverSentEventsArriveInOrder() async throws {
            let client = try todoClient()
            let response = try await client.stream(TodoAPI.TodoEvents())
            #expect(response.statusCode == 200)
            var events: [ServerSentEvent] = []
            for try await event in response.events() {
                events.append(event)
            }
            #expect(events.map(\.id) == ["1", "2", "3"])
            #expect(events.map(\.event) == ["created", "updated", "deleted"])
            #expect(events.first?.data == #"{"id":4,"title":"Buy milk"}"#)
        }

        @Test("a streamed body is handed over in the chunks the fixture recorded")
        func streamedChunksReplayAsRecorded() async throws {
            let client = try todoClient()
            let response = try await client.stream(TodoAPI.TodoEvents())
            var sizes: [Int] = []
            var body = Data()
            for try await chunk in response.chunks {
                sizes.append(chunk.count)
                body.append(chunk)
            }
            #expect(String(decoding: body, as: UTF8.self) == TodoAPI.changeEvents.joined())
            if !client.isRecording {
                let entry = try #require(HARArchive(contentsOf: client.fixture.fileURL).log.entries.first)
                let recorded = try #require(entry.response.content.chunks, "a streamed body records its chunks")
                #expect(sizes == recorded.map(\.size))
            }
        }

        @Test("NDJSON lines decode one todo each, in order")
        func ndjsonLinesDecodeInOrder() async throws {
            let client = try todoClient()
            let response = try await client.stream(TodoAPI.ExportTodos())
            var todos: [TodoAPI.Todo] = []
            for try await todo in response.ndjson(as: TodoAPI.Todo.self) {
                todos.append(todo)
            }
            #expect(todos.map(\.id) == [1, 2, 3, 4])
            #expect(todos.map(\.title) == ["Exported 1", "Exported 2", "Exported 3", "Exported 4"])
            #expect(todos.map(\.done) == [true, false, false, false])
        }

        @Test("an assistant's events decode as JSON deltas until [DONE]")
        func decodesEventsUntilDone() async throws {
            let client = try todoClient()
            let response = try await client.stream(TodoAPI.Suggest(prompt: "What should I buy?"))
            var text = ""
            for try await suggestion in response.events(decoding: TodoAPI.Suggestion.self, until: "[DONE]") {
                text += suggestion.delta
            }
            #expect(text == "Buy milk and eggs")
        }

        @Test("an event source reconnects with Last-Event-ID and stops at the server's 204")
        func eventSourceResumesWithLastEventID() async throws {
            let client = try todoClient()
            let policy = EventSourcePolicy(
                minimumDelay: .milliseconds(1), initialDelay: .milliseconds(1), maximumAttempts: 3)
            let source = client.manager.eventSource(
                TodoAPI.TodoChanges(), tokenProvider: { TodoSecrets.accessToken }, policy: policy)
            var events: [ServerSentEvent] = []
            for try await event in source {
                events.append(event)
                if events.count == 10 { break }  // a bound: the server sends two
            }
            #expect(events.map(\.data) == ["Buy milk", "Call mum"])
            #expect(client.sent.all.map { $0.header("Last-Event-ID") } == [nil, "2"])
        }

        @Test("a download writes the CSV export to the destination, byte for byte")
        func downloadsCSVToFile() async throws {
            let client = try todoClient()
            let folder = try Self.scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("todos.csv")
            let session = client.session
            let file = try await client.manager.download(
                TodoAPI.TodosCSV(), to: destination, accessToken: { session.accessToken })
            #expect(file.url.standardizedFileURL == destination.standardizedFileURL)
            #expect(try Data(contentsOf: destination) == TodoAPI.csvBody)
            #expect(file.byteCount == Int64(TodoAPI.csvBody.count))
            #expect(file.resumes == 0)
        }

        @Test("a download whose bytes miss the expected SHA-256 fails and leaves no file")
        func downloadRejectsWrongChecksum() async throws {
            let client = try todoClient()
            let folder = try Self.scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let destination = folder.appendingPathComponent("todos.csv")
            let session = client.session
            let error = try await #require(throws: DownloadError.self) {
                _ = try await client.manager.download(
                    TodoAPI.TodosCSV(), to: destination,
                    options: DownloadOptions(expectedSHA256: String(repeating: "0", count: 64), maximumRequests: 1),
                    accessToken: { session.accessToken })
            }
            guard case .checksumMismatch = error else {
                Issue.record("expected a checksum mismatch, got \(error)")
                return
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }

        /// A new empty folder in the temporary directory.
        static func scratchFolder() throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "todo-replay-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder
        }
    }
}

// netkit-demo: NetKit's main job, end to end, against a local HTTP server the demo starts itself.
import Foundation
import LoopbackServer
import NetKit
import Synchronization

struct Todo: Codable, Sendable {
    let id: Int
    let title: String
    let done: Bool
}

struct ListTodos: NetworkRequest {
    typealias Response = [Todo]
    var path: String { "/todos" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["filter": "open & urgent"] }
}

struct CreateTodo: NetworkRequest {
    typealias Response = Todo
    let title: String
    /// A POST is retried only when the server can recognise a repeat: the key is the same for every attempt.
    let idempotencyKey = UUID().uuidString
    var headers: [String: String]? { ["Idempotency-Key": idempotencyKey] }
    var path: String { "/todos" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(encodable: ["title": title]) }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.05) }
}

struct DeleteTodo: NetworkRequest {
    typealias Response = EmptyResponse
    let id: Int
    var path: String { "/todos/\(id)" }
    var method: HTTPMethod { .delete }
}

struct UploadAttachment: NetworkRequest {
    typealias Response = StatusCodeResponse
    let progress: NetworkProgress?
    var path: String { "/attachments" }
    var method: HTTPMethod { .post }
    var multipartData: MultipartFormData? {
        var form = MultipartFormData()
        form.addPart(name: "note", data: Data("quarterly numbers".utf8), mimeType: "text/plain")
        form.addPart(name: "file", data: Data(repeating: 0x2A, count: 4 << 20), mimeType: "application/octet-stream", filename: "report.bin")
        return form
    }
}

struct RefreshToken: NetworkRequest {
    struct Tokens: Decodable { let accessToken: String }
    typealias Response = Tokens
    var path: String { "/auth/refresh" }
    var method: HTTPMethod { .post }
    var allowsRetry: Bool { false }
}

struct TodoFeed: NetworkRequest {
    struct Change: Decodable, Sendable { let id: Int; let title: String }
    typealias Response = EmptyResponse
    var path: String { "/todos/feed" }
    var method: HTTPMethod { .get }
}

struct TodoEvents: NetworkRequest, Sendable {
    typealias Response = EmptyResponse
    var path: String { "/todos/events" }
    var method: HTTPMethod { .get }
}

struct SlowReport: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/reports/slow" }
    var method: HTTPMethod { .get }
    var timeout: Duration? { .milliseconds(300) }
}

/// A plugin of the demo's own: it counts attempts by reason.
final class AttemptCounter: Plugin {
    let counts = Mutex<[String: Int]>([:])
    func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        counts.withLock { $0["\(context.reason)", default: 0] += 1 }
    }
}

/// The demo's token store and refresher: the refresh goes through the same manager.
final class TokenStore: TokenRefreshProvider, Sendable {
    let accessToken = Mutex("expired-token")
    let manager: NetworkManager
    init(manager: NetworkManager) { self.manager = manager }

    func refreshTokenIfNeeded() async throws {
        let tokens = try await manager.send(RefreshToken(), accessToken: nil)
        accessToken.withLock { $0 = tokens.accessToken }
    }
}

/// What the server answered, in order, so the demo reports what happened rather than what should have.
final class ServerLog: Sendable {
    private let lines = Mutex<[String]>([])
    private let cursor = Mutex(0)

    func record(_ request: LoopbackRequest, _ response: LoopbackResponse) -> LoopbackResponse {
        lines.withLock { $0.append("\(request.method) \(request.path) → \(response.status)") }
        return response
    }

    /// The exchanges since the last call, joined for printing.
    func sinceLastLook() -> String {
        let all = lines.withLock { $0 }
        let start = cursor.withLock { cursor in
            defer { cursor = all.count }
            return cursor
        }
        return all[start...].joined(separator: ", ")
    }

    var count: Int { lines.withLock { $0.count } }
}

/// The demo API: todos behind a bearer token; POST fails with 503 once, to show a retry.
func makeServer(log: ServerLog) throws -> LoopbackServer {
    let createAttempts = Mutex(0)
    return try LoopbackServer { request in log.record(request, answer(request, createAttempts: createAttempts)) }
}

func answer(_ request: LoopbackRequest, createAttempts: borrowing Mutex<Int>) -> LoopbackResponse {
    if request.path == "/auth/refresh" { return .json(#"{"accessToken":"fresh-token"}"#) }
    guard request.header("Authorization") == "Bearer fresh-token" else { return .json(#"{"error":"expired"}"#, status: 401) }
    switch (request.method, request.path) {
    case ("GET", "/todos"):
        return .json(#"[{"id":1,"title":"Write docs","done":false},{"id":2,"title":"Ship","done":false}]"#)
    case ("POST", "/todos"):
        if createAttempts.withLock({ $0 += 1; return $0 }) == 1 { return .text("busy", status: 503) }
        let title = (try? JSONDecoder().decode([String: String].self, from: request.body))?["title"] ?? "?"
        return .json(#"{"id":3,"title":"\#(title)","done":false}"#, status: 201)
    case ("GET", "/todos/feed"):
        return .streamed(headers: [("Content-Type", "application/x-ndjson")]) { writer in
            for id in 1...3 { _ = writer.write(#"{"id":\#(id),"title":"change \#(id)"}"# + "\n") }
        }
    case ("GET", "/todos/events"):
        // The first connection breaks after one event; the second resumes after it; then 204: no more.
        switch request.header("Last-Event-ID") {
        case nil:
            return .streamed(headers: [("Content-Type", "text/event-stream")]) { writer in
                _ = writer.write("retry: 50\nid: 1\nevent: added\ndata: Write docs\n\n")
                writer.abort()
            }
        case "1":
            return .streamed(headers: [("Content-Type", "text/event-stream")]) { $0.write("id: 2\nevent: done\ndata: Ship\n\n") }
        default:
            return LoopbackResponse(status: 204)
        }
    case ("GET", "/reports/slow"):
        return LoopbackResponse.json("{}").with(.delayBeforeHead(.seconds(5)))
    case ("DELETE", _):
        return LoopbackResponse(status: 204)
    case ("POST", "/attachments"):
        let parts = (try? request.multipartParts()) ?? []
        return LoopbackResponse(status: 201, headers: [("X-Parts", "\(parts.count)"), ("X-Bytes", "\(parts.last?.data.count ?? 0)")])
    default:
        return .text("not found", status: 404)
    }
}

let log = ServerLog()
let server = try makeServer(log: log)
defer { server.stop() }
print("NetKit \(NetKitVersion.current) demo — local API at \(server.baseURL.absoluteString)")

let manager = NetworkManager(
    baseURL: server.baseURL,
    userAgentConfiguration: UserAgentConfiguration(appName: "netkit-demo", appVersion: NetKitVersion.current)
)
let store = TokenStore(manager: manager)
manager.tokenRefresher = store
let token = { store.accessToken.withLock { $0 } }

let todos = try await manager.send(ListTodos(), accessToken: token)
print("GET /todos → \(todos.map(\.title))\n  server saw: \(log.sinceLastLook())")
print("  refreshes: \(await manager.tokenRefreshCoordinator?.refreshCount ?? 0)")

let created = try await manager.send(CreateTodo(title: "Celebrate"), accessToken: token)
print("POST /todos → #\(created.id) \"\(created.title)\"\n  server saw: \(log.sinceLastLook())")

_ = try await manager.send(DeleteTodo(id: created.id), accessToken: token)
print("DELETE /todos/\(created.id) → EmptyResponse\n  server saw: \(log.sinceLastLook())")

let progress = NetworkProgress()
let updates = progress.updates
let watcher = Task {
    var count = 0
    for await _ in updates { count += 1 }
    return count
}
let upload = try await manager.send(UploadAttachment(progress: progress), accessToken: token)
print("POST /attachments → \(upload.statusCode): the server parsed \(upload.value(forHeader: "X-Parts") ?? "?") parts, \(upload.value(forHeader: "X-Bytes") ?? "?") bytes of file")
print("  \(await watcher.value) progress updates, final \(progress.fractionCompleted), outcome \(progress.outcome.map { "\($0)" } ?? "none")")
print("  server saw: \(log.sinceLastLook())")

do {
    _ = try await manager.send(DeleteTodo(id: 1), accessToken: { "tok\r\nX-Admin: 1" })
} catch {
    let seen = log.sinceLastLook()
    print("A token with CR/LF is refused before sending: \(error)\n  server saw: \(seen.isEmpty ? "nothing" : seen)")
}

let feed = try await manager.stream(TodoFeed(), accessToken: token)
var changes: [String] = []
for try await change in feed.ndjson(as: TodoFeed.Change.self) { changes.append(change.title) }
print("stream GET /todos/feed → NDJSON \(changes)\n  server saw: \(log.sinceLastLook())")

var events: [String] = []
for try await event in manager.eventSource(TodoEvents(), accessToken: token) { events.append("\(event.event)(\(event.data))#\(event.id ?? "-")") }
print("eventSource GET /todos/events → \(events), reconnected after a drop; 204 ended it\n  server saw: \(log.sinceLastLook())")

let counter = AttemptCounter()
manager.plugins = [counter]
let started = ContinuousClock.now
do {
    _ = try await manager.send(SlowReport(), accessToken: token)
} catch let error as URLError where error.code == .timedOut {
    print("GET /reports/slow → URLError.timedOut after \(ContinuousClock.now - started) (timeout 300 ms; the server waits 5 s)")
}
print("  plugin saw attempts: \(counter.counts.withLock { $0 })")
print("Requests the server received in all: \(server.requestCount)")

import Foundation
import LoopbackServer
import NetKit
import NetKitLock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Todo API on 127.0.0.1, used only while fixtures record (`NETKIT_HAR_MODE=record-once` or `rerecord`): it is
/// started on first use, once per process, and a replay never starts it.
///
/// It checks every credential for real (bearer tokens, API key, password, Basic credentials, session cookie), so a
/// fixture records what the client's flows actually get.
final class TodoServer: Sendable {
    /// The process's server, started by the first test that records.
    static let shared = Result { try TodoServer() }

    /// What fixtures record from: URLSession with no cookie store and no cache of its own, so that only NetKit's
    /// cookie jar and response cache act (as in a replay).
    static func liveTransport() -> any HTTPTransport {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSessionTransport(configuration: configuration)
    }

    private let server: LoopbackServer

    private init() throws(LoopbackServerError) {
        let routes = TodoRoutes()
        server = try LoopbackServer { request in routes.answer(request) }
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { server.baseURL }

    /// The same server as `http://localhost:<port>`: another origin, for the file host.
    var otherOrigin: URL { URL(string: "http://localhost:\(server.port)")! }
}

/// What the Todo API answers; runs on each connection's thread.
private final class TodoRoutes: Sendable {
    typealias Todo = TodoAPI.Todo

    static let todos = [
        Todo(id: 1, title: "Write docs", done: true, tags: ["docs"]),
        Todo(id: 2, title: "Ship 1.0", done: false, tags: ["release", "urgent"]),
        Todo(id: 3, title: "Plan the retro", done: false, tags: ["team"]),
    ]

    /// How often each route that changes its answer was asked.
    private let hits = Lock<[String: Int]>([:])
    private let groceries = Lock(["Milk", "Eggs"])

    func answer(_ request: LoopbackRequest) -> LoopbackResponse {
        if case let (id, rest)? = Self.todoTarget(request.path, under: "/todos") {
            return todo(id, rest, request)
        }
        if let id = Self.todoTarget(request.path, under: "/v1/todos")?.id {
            return LoopbackResponse(status: 301, headers: [("Location", "/todos/\(id)")])
        }
        switch (request.method, request.path) {
        case ("GET", "/todos"), ("HEAD", "/todos"):
            return signedIn(request) { listTodos(request) }
        case ("POST", "/todos"):
            return signedIn(request) { createTodo(request) }
        case ("GET", "/todos/search"):
            return signedIn(request) { search(request) }
        case ("GET", "/todos/summary"):
            return signedIn(request) {
                Self.json(Envelope(data: ["todos": Self.todos], meta: ["count": Self.todos.count]))
            }
        case ("GET", "/todos/pages"):
            return signedIn(request) { page(request) }
        case ("GET", "/todos/feed"):
            return signedIn(request) { feed(request) }
        case ("POST", "/todos/import"):
            return signedIn(request) { importTodos(request) }
        case ("POST", "/todos/bulk"):
            return LoopbackResponse(
                status: 503, headers: [("Retry-After", "0"), ("Content-Type", "text/plain")],
                body: Data("overloaded".utf8))
        case ("GET", "/todos/events"):
            return signedIn(request) { events() }
        case ("GET", "/todos/changes"):
            return signedIn(request) { changes(after: request.header("Last-Event-ID")) }
        case ("GET", "/todos/export"):
            return signedIn(request) { export() }
        case ("POST", "/assistant/suggest"):
            return signedIn(request) { suggestion() }
        case ("GET", "/exports/todos.csv"):
            return signedIn(request) { csv() }
        case ("GET", "/motd"):
            return LoopbackResponse(
                headers: [("Content-Type", "text/plain; charset=iso-8859-1")],
                body: "Café ouvert à 9h, bon appétit !".data(using: .isoLatin1) ?? Data())
        default:
            return accountRoute(request) ?? semanticsRoute(request) ?? Self.problem(404, "no_route", "No such route")
        }
    }

    // MARK: - Todos

    private func listTodos(_ request: LoopbackRequest) -> LoopbackResponse {
        var todos = Self.todos
        let query = request.queryItems
        if let state = query.first(where: { $0.name == "state" })?.value {
            todos = todos.filter { $0.done == (state == "done") }
        }
        let tags = Set(query.filter { $0.name == "tag" }.map(\.value))
        if !tags.isEmpty {
            todos = todos.filter { !tags.isDisjoint(with: $0.tags) }
        }
        if query.contains(where: { $0.name == "sort" && $0.value == "title" }) {
            todos.sort { $0.title < $1.title }
        }
        var response = Self.json(todos)
        response.headers.append(("X-Total-Count", String(todos.count)))
        return response
    }

    private func createTodo(_ request: LoopbackRequest) -> LoopbackResponse {
        guard let new = try? JSONDecoder().decode(TodoAPI.NewTodo.self, from: request.body) else {
            return Self.problem(400, "bad_json", "The body is not a todo")
        }
        guard !new.title.isEmpty else { return Self.problem(422, "title_empty", "A todo needs a title.") }
        var response = Self.json(Todo(id: 4, title: new.title, done: false, tags: new.tags), status: 201)
        response.headers.append(("Location", "/todos/4"))
        return response
    }

    private func search(_ request: LoopbackRequest) -> LoopbackResponse {
        let query = request.queryItems.first { $0.name == "q" }?.value ?? ""
        let words = query.lowercased().split(separator: " ").map(String.init)
        let matches = Self.todos.filter { todo in words.contains { todo.title.lowercased().contains($0) } }
        return Self.json(TodoAPI.SearchResult(query: query, matches: matches.map(\.id)))
    }

    private func todo(_ id: Int, _ rest: String, _ request: LoopbackRequest) -> LoopbackResponse {
        guard Self.isSignedIn(request) else { return Self.unauthorized }
        guard let todo = Self.todos.first(where: { $0.id == id }) else {
            return Self.problem(404, "not_found", "Todo \(id) does not exist")
        }
        switch (request.method, rest) {
        case ("GET", ""):
            var response = Self.json(todo)
            response.headers.append(("Cache-Control", "private, max-age=60"))
            return response
        case ("PATCH", ""):
            guard let patch = try? JSONDecoder().decode(TodoAPI.TodoPatch.self, from: request.body) else {
                return Self.problem(400, "bad_json", "The body is not a change")
            }
            if let title = patch.title, let other = Self.todos.first(where: { $0.title == title && $0.id != id }) {
                return Self.json(TodoAPI.Conflict(conflictID: other.id), status: 409)
            }
            var changed = todo
            changed.title = patch.title ?? todo.title
            changed.done = patch.done ?? todo.done
            return Self.json(changed)
        case ("DELETE", ""):
            return LoopbackResponse(status: 204)
        case ("GET", "details"):
            return .json(
                #"{"id":\#(id),"title":"\#(todo.title)","created_at":"2024-05-01T09:00:00Z","assignee_name":"Ann","#
                    + #""requested_by":"\#(request.header("X-Client") ?? "unknown")"}"#)
        case ("GET", "avatar"):
            return LoopbackResponse(headers: [("Content-Type", "image/png")], body: TodoAPI.avatarBytes)
        case ("POST", "attachments"):
            let parts = (try? request.multipartParts()) ?? []
            let file = parts.first { $0.filename != nil }
            let caption = parts.first { $0.name == "caption" }.map { String(decoding: $0.data, as: UTF8.self) }
            return Self.json(
                TodoAPI.AttachmentReceipt(
                    parts: parts.count, fileName: file?.filename ?? "", fileBytes: file?.data.count ?? 0,
                    caption: caption ?? ""), status: 201)
        default:
            return Self.problem(405, "method_not_allowed", "\(request.method) is not allowed here")
        }
    }

    // MARK: - Paging

    private func page(_ request: LoopbackRequest) -> LoopbackResponse {
        let number = request.queryItems.first { $0.name == "page" }.flatMap { Int($0.value) } ?? 1
        let ids = [[1, 2, 3], [4, 5, 6], [7]][min(max(number, 1), 3) - 1]
        var response = Self.json(ids.map { Todo(id: $0, title: "Item \($0)", done: $0.isMultiple(of: 2)) })
        var links = [#"</todos/pages?page=3>; rel="last""#]
        if number < 3 { links.insert(#"</todos/pages?page=\#(number + 1)>; rel="next""#, at: 0) }
        response.headers.append(("Link", links.joined(separator: ", ")))
        return response
    }

    private func feed(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.queryItems.first(where: { $0.name == "cursor" })?.value {
        case nil:
            Self.json(TodoAPI.Feed(items: Array(Self.todos.prefix(2)), nextCursor: "c-2"))
        case "c-2"?:
            Self.json(TodoAPI.Feed(items: Array(Self.todos.suffix(1)), nextCursor: nil))
        default:
            Self.problem(400, "bad_cursor", "Unknown cursor")
        }
    }

    // MARK: - Accounts and credentials

    private func accountRoute(_ request: LoopbackRequest) -> LoopbackResponse? {
        switch (request.method, request.path) {
        case ("GET", "/me"):
            signedIn(request) { Self.json(TodoAPI.Profile(name: "Ann", email: "ann@example.com")) }
        case ("POST", "/auth/login"):
            login(request)
        case ("POST", "/auth/refresh"):
            refresh(request)
        case ("POST", "/oauth/token"):
            passwordGrant(request)
        case ("POST", "/auth/session"):
            startSession(request)
        case ("GET", "/me/session"):
            request.header("Cookie")?.contains("session=\(TodoSecrets.sessionCookie)") == true
                ? Self.json(TodoAPI.SessionUser(user: TodoSecrets.username))
                : Self.problem(401, "no_session", "Sign in first")
        case ("GET", "/integrations"):
            request.header("X-API-Key") == TodoSecrets.apiKey
                ? Self.json(["integrations": ["calendar", "mail"]]) : Self.problem(403, "bad_key", "Unknown API key")
        case ("GET", "/public/todos"):
            request.queryItems.contains { $0.name == "api_key" && $0.value == TodoSecrets.apiKey }
                ? Self.json(Self.todos.filter(\.done)) : Self.problem(403, "bad_key", "Unknown API key")
        case ("GET", "/admin/export"):
            request.header("Authorization") == "Basic \(TodoSecrets.basicCredentials)"
                ? Self.json(TodoAPI.ExportSummary(exported: 3, format: "csv"))
                : Self.problem(401, "bad_credentials", "Wrong user or password")
        case ("GET", "/files/report.csv"):
            request.header("Authorization") == nil
                ? LoopbackResponse(headers: [("Content-Type", "text/csv")], body: Data("id,done\n1,true\n".utf8))
                : Self.problem(400, "credential_leak", "The file host must never get the API's token")
        default:
            nil
        }
    }

    private func login(_ request: LoopbackRequest) -> LoopbackResponse {
        let fields = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
        guard fields["username"] == TodoSecrets.username, fields["password"] == TodoSecrets.password else {
            return Self.problem(401, "bad_credentials", "Wrong user or password")
        }
        return Self.tokens(access: TodoSecrets.accessToken)
    }

    private func refresh(_ request: LoopbackRequest) -> LoopbackResponse {
        let fields = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
        guard fields["refresh_token"] == TodoSecrets.refreshToken else {
            return Self.problem(400, "invalid_grant", "The refresh token was revoked")
        }
        return Self.tokens(access: TodoSecrets.refreshedAccessToken)
    }

    private func passwordGrant(_ request: LoopbackRequest) -> LoopbackResponse {
        let fields = Dictionary(request.formFields().map { ($0.name, $0.value) }) { first, _ in first }
        let expected = [
            "grant_type": "password", "username": TodoSecrets.username, "password": TodoSecrets.password,
            "client_id": "todo-ios", "client_secret": TodoSecrets.clientSecret,
        ]
        guard request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true,
            fields == expected
        else { return Self.problem(401, "invalid_client", "Wrong client or user") }
        return Self.tokens(access: TodoSecrets.accessToken)
    }

    private func startSession(_ request: LoopbackRequest) -> LoopbackResponse {
        let fields = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
        guard fields["password"] == TodoSecrets.password else {
            return Self.problem(401, "bad_credentials", "Wrong user or password")
        }
        return LoopbackResponse(
            status: 204,
            headers: [
                ("Set-Cookie", "session=\(TodoSecrets.sessionCookie); Path=/; HttpOnly"),
                ("Set-Cookie", "theme=dark; Path=/"),
            ])
    }

    // MARK: - HTTP semantics

    private func semanticsRoute(_ request: LoopbackRequest) -> LoopbackResponse? {
        switch (request.method, request.path) {
        case ("GET", "/notes/pinned"):
            let etag = #""note-7""#
            if request.header("If-None-Match") == etag {
                return LoopbackResponse(status: 304, headers: [("ETag", etag), ("Cache-Control", "no-cache")])
            }
            var response = Self.json(TodoAPI.Note(id: 7, text: "Water the plants"))
            response.headers.append(("ETag", etag))
            response.headers.append(("Cache-Control", "no-cache"))
            return response
        case ("GET", "/lists/groceries"):
            var response = Self.json(TodoAPI.Groceries(items: groceries.withLock { $0 }))
            response.headers.append(("Cache-Control", "max-age=300"))
            return response
        case ("POST", "/lists/groceries"):
            let item = (try? JSONDecoder().decode([String: String].self, from: request.body))?["item"] ?? "?"
            let items = groceries.withLock { items in
                items.append(item)
                return items
            }
            return Self.json(TodoAPI.Groceries(items: items), status: 201)
        case ("GET", "/reports/weekly"):
            if hit("/reports/weekly") == 1 {
                return LoopbackResponse(
                    status: 503, headers: [("Retry-After", "1"), ("Content-Type", "text/plain")],
                    body: Data("busy, come back in a second".utf8))
            }
            return Self.json(TodoAPI.Report(completed: 5, opened: 3))
        default:
            return nil
        }
    }

    private func importTodos(_ request: LoopbackRequest) -> LoopbackResponse {
        guard let key = request.header("Idempotency-Key") else {
            return Self.problem(400, "no_key", "Send an Idempotency-Key")
        }
        if hit("import \(key)") == 1 {
            return LoopbackResponse(
                status: 503, headers: [("Retry-After", "0"), ("Content-Type", "text/plain")],
                body: Data("overloaded".utf8))
        }
        let todos = (try? JSONDecoder().decode([TodoAPI.NewTodo].self, from: request.body)) ?? []
        return Self.json(TodoAPI.ImportResult(imported: todos.count), status: 201)
    }

    // MARK: - Streaming

    /// Three changes as server-sent events, written one by one.
    private func events() -> LoopbackResponse {
        .streamed(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")]) { writer in
            for event in TodoAPI.changeEvents {
                guard writer.write(event) else { return }
                Self.pace()
            }
        }
    }

    /// The first connection delivers two events and ends; a reconnection after the second is told 204: no more.
    private func changes(after lastEventID: String?) -> LoopbackResponse {
        guard lastEventID == nil else { return LoopbackResponse(status: lastEventID == "2" ? 204 : 400) }
        return .streamed(headers: [("Content-Type", "text/event-stream")]) { writer in
            guard writer.write("retry: 10\nid: 1\nevent: created\ndata: Buy milk\n\n") else { return }
            Self.pace()
            _ = writer.write("id: 2\nevent: created\ndata: Call mum\n\n")
        }
    }

    /// Four todos as NDJSON, a line per write.
    private func export() -> LoopbackResponse {
        .streamed(headers: [("Content-Type", "application/x-ndjson")]) { writer in
            for line in TodoAPI.exportLines {
                guard writer.write(line) else { return }
                Self.pace()
            }
        }
    }

    /// An assistant's suggestion, piece by piece, then `[DONE]`.
    private func suggestion() -> LoopbackResponse {
        .streamed(headers: [("Content-Type", "text/event-stream")]) { writer in
            for piece in ["Buy ", "milk ", "and eggs"] {
                guard writer.write("data: {\"delta\":\"\(piece)\"}\n\n") else { return }
                Self.pace()
            }
            _ = writer.write("data: [DONE]\n\n")
        }
    }

    /// The todos as CSV: a few hundred bytes with a strong validator.
    private func csv() -> LoopbackResponse {
        LoopbackResponse(
            headers: [("Content-Type", "text/csv"), ("ETag", #""csv-3""#), ("Accept-Ranges", "bytes")],
            body: TodoAPI.csvBody)
    }

    // MARK: - Helpers

    /// A streaming server's pace between two pieces of a body, so that a recording keeps them as separate chunks
    /// (`_chunks`) the way a live event stream delivers them. It runs only while fixtures record: a replay delivers
    /// the recorded chunks at once.
    private static func pace() {
        Thread.sleep(forTimeInterval: 0.15)
    }

    /// `{"data": {"todos": [...]}, "meta": {"count": 3}}`.
    private struct Envelope: Encodable {
        var data: [String: [Todo]]
        var meta: [String: Int]
    }

    /// `/todos/<id>` or `/todos/<id>/<rest>` under `prefix`: the id and the rest (empty for none).
    private static func todoTarget(_ path: String, under prefix: String) -> (id: Int, rest: String)? {
        guard path.hasPrefix(prefix + "/") else { return nil }
        let parts = path.dropFirst(prefix.count + 1).split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let id = Int(first) else { return nil }
        return (id, parts.count > 1 ? String(parts[1]) : "")
    }

    private func hit(_ key: String) -> Int {
        hits.withLock { hits in
            hits[key, default: 0] += 1
            return hits[key, default: 0]
        }
    }

    private static func isSignedIn(_ request: LoopbackRequest) -> Bool {
        let token = request.header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? $0.dropFirst(7) : nil }
        return token == TodoSecrets.accessToken[...] || token == TodoSecrets.refreshedAccessToken[...]
    }

    private func signedIn(_ request: LoopbackRequest, _ answer: () -> LoopbackResponse) -> LoopbackResponse {
        Self.isSignedIn(request) ? answer() : Self.unauthorized
    }

    private static let unauthorized = LoopbackResponse(
        status: 401,
        headers: [("Content-Type", "application/json"), ("WWW-Authenticate", #"Bearer error="invalid_token""#)],
        body: Data(#"{"code":"invalid_token","message":"The access token expired"}"#.utf8))

    private static func tokens(access: String) -> LoopbackResponse {
        json(
            TodoAPI.Tokens(
                accessToken: access, refreshToken: TodoSecrets.refreshToken, tokenType: "Bearer", expiresIn: 3600))
    }

    private static func problem(_ status: Int, _ code: String, _ message: String) -> LoopbackResponse {
        json(TodoAPI.Problem(code: code, message: message), status: status)
    }

    private static func json(_ value: some Encodable, status: Int = 200) -> LoopbackResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(value) else { return .text("cannot encode", status: 500) }
        return LoopbackResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }
}

import Foundation
import NetKit

/// A small Todo API client built on NetKit's public API: its models and its requests. ``TodoClient`` sends them.
enum TodoAPI {
    struct Todo: Codable, Equatable, Sendable {
        var id: Int
        var title: String
        var done: Bool
        var tags: [String] = []

        init(id: Int, title: String, done: Bool, tags: [String] = []) {
            self.id = id
            self.title = title
            self.done = done
            self.tags = tags
        }

        /// `tags` may be missing.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            done = try container.decode(Bool.self, forKey: .done)
            tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        }
    }

    struct SearchResult: Codable, Equatable, Sendable {
        var query: String
        var matches: [Int]
    }

    struct NewTodo: Codable, Sendable {
        var title: String
        var tags: [String] = []
    }

    struct TodoPatch: Codable, Sendable {
        var title: String?
        var done: Bool?
    }

    /// OAuth's token response, snake_case on the wire.
    struct Tokens: Codable, Sendable {
        var accessToken: String
        var refreshToken: String
        var tokenType: String
        var expiresIn: Int

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
        }
    }

    /// The API's error object: `{"code": "...", "message": "..."}`.
    struct Problem: Codable, Error, Equatable, Sendable {
        var code: String
        var message: String
    }

    /// A rename to a title another todo has: `{"conflict_id": 1}`.
    struct Conflict: Codable, Error, Equatable, Sendable {
        var conflictID: Int

        enum CodingKeys: String, CodingKey {
            case conflictID = "conflict_id"
        }
    }

    struct Profile: Codable, Equatable, Sendable {
        var name: String
        var email: String
    }

    // MARK: - Todos

    struct ListTodos: NetworkRequest {
        typealias Response = [Todo]
        var parameters: [String: String]?
        var tags: [String] = []
        var path: String { "/todos" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { parameters }
        var queryItems: [URLQueryItem]? { tags.isEmpty ? nil : tags.map { URLQueryItem(name: "tag", value: $0) } }
    }

    struct GetTodo: NetworkRequest {
        typealias Response = Todo
        var id: Int
        var path: String { "/todos/\(id)" }
        var method: HTTPMethod { .get }
    }

    struct CreateTodo: NetworkRequest {
        typealias Response = Todo
        var todo: NewTodo
        var path: String { "/todos" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: todo) }
    }

    struct UpdateTodo: NetworkRequest {
        typealias Response = Todo
        var id: Int
        var patch: TodoPatch
        var path: String { "/todos/\(id)" }
        var method: HTTPMethod { .patch }
        var body: RequestBody? { RequestBody(encodable: patch) }
        var errorDecoder: ((Data) -> (any Error)?)? { { try? JSONDecoder().decode(Conflict.self, from: $0) } }
    }

    struct DeleteTodo: NetworkRequest {
        typealias Response = EmptyResponse
        var id: Int
        var path: String { "/todos/\(id)" }
        var method: HTTPMethod { .delete }
    }

    /// `HEAD /todos`: the count is in `X-Total-Count`.
    struct CountTodos: NetworkRequest {
        typealias Response = StatusCodeResponse
        var path: String { "/todos" }
        var method: HTTPMethod { .head }
    }

    /// `{"data": {"todos": [...]}, "meta": {...}}`.
    struct TodoSummary: NetworkRequest {
        typealias Response = [Todo]
        var path: String { "/todos/summary" }
        var method: HTTPMethod { .get }
        var responseKeyPath: [String]? { ["data", "todos"] }
    }

    struct TodoDetails: Decodable, Equatable, Sendable {
        var id: Int
        var title: String
        var createdAt: String
        var assigneeName: String
        var requestedBy: String
    }

    /// snake_case keys, decoded by the manager's default decoder.
    struct GetTodoDetails: NetworkRequest {
        typealias Response = TodoDetails
        var id: Int
        var path: String { "/todos/\(id)/details" }
        var method: HTTPMethod { .get }
    }

    struct MessageOfTheDay: NetworkRequest {
        typealias Response = String
        var path: String { "/motd" }
        var method: HTTPMethod { .get }
    }

    struct Avatar: NetworkRequest {
        typealias Response = Data
        var id: Int
        var path: String { "/todos/\(id)/avatar" }
        var method: HTTPMethod { .get }
    }

    struct AttachmentReceipt: Codable, Equatable, Sendable {
        var parts: Int
        var fileName: String
        var fileBytes: Int
        var caption: String

        enum CodingKeys: String, CodingKey {
            case parts
            case fileName = "file_name"
            case fileBytes = "file_bytes"
            case caption
        }
    }

    struct UploadAttachment: NetworkRequest {
        typealias Response = AttachmentReceipt
        var id: Int
        var form: MultipartFormData
        var progress: NetworkProgress?
        var path: String { "/todos/\(id)/attachments" }
        var method: HTTPMethod { .post }
        var multipartData: MultipartFormData? { form }
    }

    // MARK: - Paging

    struct TodoPage: NetworkRequest {
        typealias Response = [Todo]
        var path: String { "/todos/pages" }
        var method: HTTPMethod { .get }
        var queryItems: [URLQueryItem]? { [URLQueryItem(name: "page", value: "1")] }
    }

    struct Feed: Codable, Sendable {
        var items: [Todo]
        var nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case items
            case nextCursor = "next_cursor"
        }
    }

    struct TodoFeed: NetworkRequest {
        typealias Response = Feed
        var cursor: String?
        var path: String { "/todos/feed" }
        var method: HTTPMethod { .get }
        var queryItems: [URLQueryItem]? { cursor.map { [URLQueryItem(name: "cursor", value: $0)] } }
    }

    // MARK: - Accounts

    struct GetProfile: NetworkRequest {
        typealias Response = Profile
        var path: String { "/me" }
        var method: HTTPMethod { .get }
    }

    struct Login: NetworkRequest {
        typealias Response = Tokens
        var username: String
        var password: String
        var path: String { "/auth/login" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: ["username": username, "password": password]) }
    }

    struct RefreshTokens: NetworkRequest {
        typealias Response = Tokens
        var refreshToken: String
        var path: String { "/auth/refresh" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: ["refresh_token": refreshToken]) }
    }

    /// OAuth's password grant, as a form.
    struct PasswordGrant: NetworkRequest {
        typealias Response = Tokens
        var path: String { "/oauth/token" }
        var method: HTTPMethod { .post }
        var body: RequestBody? {
            RequestBody(formURLEncoded: [
                URLQueryItem(name: "grant_type", value: "password"),
                URLQueryItem(name: "username", value: TodoSecrets.username),
                URLQueryItem(name: "password", value: TodoSecrets.password),
                URLQueryItem(name: "client_id", value: "todo-ios"),
                URLQueryItem(name: "client_secret", value: TodoSecrets.clientSecret),
            ])
        }
    }

    /// Signs in with a cookie: `204` and `Set-Cookie: session=…`.
    struct StartSession: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/auth/session" }
        var method: HTTPMethod { .post }
        var body: RequestBody? {
            RequestBody(encodable: ["username": TodoSecrets.username, "password": TodoSecrets.password])
        }
    }

    struct SessionUser: Codable, Equatable, Sendable {
        var user: String
    }

    struct CurrentSession: NetworkRequest {
        typealias Response = SessionUser
        var path: String { "/me/session" }
        var method: HTTPMethod { .get }
    }

    struct Integrations: NetworkRequest {
        typealias Response = [String]
        var path: String { "/integrations" }
        var method: HTTPMethod { .get }
        var responseKeyPath: [String]? { ["integrations"] }
    }

    struct PublicTodos: NetworkRequest {
        typealias Response = [Todo]
        var path: String { "/public/todos" }
        var method: HTTPMethod { .get }
    }

    struct ExportSummary: Codable, Equatable, Sendable {
        var exported: Int
        var format: String
    }

    struct AdminExport: NetworkRequest {
        typealias Response = ExportSummary
        var path: String { "/admin/export" }
        var method: HTTPMethod { .get }
    }

    /// A report on a file host: another origin than the API's.
    struct FileReport: NetworkRequest {
        typealias Response = String
        var host: URL
        var path: String { "/files/report.csv" }
        var method: HTTPMethod { .get }
        var baseURL: URL? { host }
    }

    // MARK: - HTTP semantics

    struct Note: Codable, Equatable, Sendable {
        var id: Int
        var text: String
    }

    /// `ETag` and `Cache-Control: no-cache`: every use is revalidated.
    struct PinnedNote: NetworkRequest {
        typealias Response = Note
        var path: String { "/notes/pinned" }
        var method: HTTPMethod { .get }
    }

    struct Groceries: Codable, Equatable, Sendable {
        var items: [String]
    }

    /// `Cache-Control: max-age=300`.
    struct GroceryList: NetworkRequest {
        typealias Response = Groceries
        var path: String { "/lists/groceries" }
        var method: HTTPMethod { .get }
    }

    struct AddGrocery: NetworkRequest {
        typealias Response = Groceries
        var item: String
        var path: String { "/lists/groceries" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: ["item": item]) }
    }

    struct Report: Codable, Equatable, Sendable {
        var completed: Int
        var opened: Int
    }

    /// Busy at first: `503` with `Retry-After: 1`.
    struct WeeklyReport: NetworkRequest {
        typealias Response = Report
        var path: String { "/reports/weekly" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.05) }
    }

    struct ImportResult: Codable, Equatable, Sendable {
        var imported: Int
    }

    /// A POST made safe to repeat by its `Idempotency-Key`.
    struct ImportTodos: NetworkRequest {
        typealias Response = ImportResult
        var key: String
        var path: String { "/todos/import" }
        var method: HTTPMethod { .post }
        var headers: [String: String]? { ["Idempotency-Key": key] }
        var body: RequestBody? { RequestBody(encodable: [NewTodo(title: "Book flights"), NewTodo(title: "Pack")]) }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.05) }
    }

    /// The same kind of POST without a key: never repeated.
    struct BulkCreate: NetworkRequest {
        typealias Response = ImportResult
        var path: String { "/todos/bulk" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: [NewTodo(title: "Book flights")]) }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.05) }
    }

    /// The API's first version's URL of a todo: moved permanently.
    struct LegacyTodo: NetworkRequest {
        typealias Response = Todo
        var id: Int
        var path: String { "/v1/todos/\(id)" }
        var method: HTTPMethod { .get }
    }

    // MARK: - Streaming

    struct TodoEvents: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/todos/events" }
        var method: HTTPMethod { .get }
    }

    struct TodoChanges: NetworkRequest, Sendable {
        typealias Response = EmptyResponse
        var path: String { "/todos/changes" }
        var method: HTTPMethod { .get }
    }

    struct ExportTodos: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/todos/export" }
        var method: HTTPMethod { .get }
    }

    struct Suggestion: Codable, Sendable {
        var delta: String
    }

    struct Suggest: NetworkRequest {
        typealias Response = EmptyResponse
        var prompt: String
        var path: String { "/assistant/suggest" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { RequestBody(encodable: ["prompt": prompt]) }
    }

    struct TodosCSV: NetworkRequest {
        typealias Response = Data
        var path: String { "/exports/todos.csv" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.05) }
    }

    // MARK: - What the server sends (shared with TodoServer, which runs only while fixtures record)

    /// Three changes as server-sent events, each written on its own.
    static let changeEvents = [
        ": todo changes\n\n",
        "id: 1\nevent: created\ndata: {\"id\":4,\"title\":\"Buy milk\"}\n\n",
        "id: 2\nevent: updated\ndata: {\"id\":4,\"done\":true}\n\n",
        "id: 3\nevent: deleted\ndata: {\"id\":4}\n\n",
    ]

    /// The NDJSON export: four todos, a line each.
    static let exportLines = (1...4).map { id in
        #"{"done":\#(id == 1),"id":\#(id),"tags":[],"title":"Exported \#(id)"}"# + "\n"
    }

    /// The CSV export: a few hundred bytes.
    static let csvBody = Data(
        (["id,title,done"] + (1...24).map { "\($0),Todo number \($0),\($0.isMultiple(of: 3))" })
            .joined(separator: "\n").utf8)

    /// A todo's avatar: a PNG signature and 24 more bytes, not UTF-8.
    static let avatarBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<24).map { UInt8($0 * 7) })
}

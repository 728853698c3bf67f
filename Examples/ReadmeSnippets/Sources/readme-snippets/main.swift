// Runs the README's snippets that can run without a network and checks what they did.
import Foundation
import Synchronization
import NetKit
import NetKitTesting
import NetMetrics
import NetOpenAPI
import Checks

let todos = try await testableManager().send(ListTodos(), accessToken: { "my-token" })
check(todos.map(\.title) == ["Ship"], "the stubbed quick start retries the 503 and decodes the list")

let (signedIn, session) = signedInManager()
check(
    signedIn.tokenRefresher === session && signedIn.holdsRequestsDuringRefresh,
    "the sign-in example wires the refresher and the held line")

let functions = functionsManager(baseURL: URL(string: "https://api.example.com")!, key: "k")
check(
    functions.credentialFields.containsHeader("x-functions-key") && functions.redirectPolicy.refusesPrivateAddresses
        && functions.credentialScope == .baseURLOrigin(and: [URL(string: "https://uploads.example.com")!]),
    "the redirects-and-credentials example declares its key, its origins and its policy")

let notFound = HTTPError(statusCode: 404, data: Data(#"{"error": "todo 42 does not exist"}"#.utf8), headers: [:])
check(describe(notFound) == #"HTTP 404: {"error": "todo 42 does not exist"}"#, "errors print as the README says")

let replicas = NetworkManager(
    baseURL: URL(string: "https://api.test")!,
    transport: StubTransport(replies: [
        .json(#"[]"#, headers: ["X-Replica-Lag": "5"])
    ]))
replicas.plugins = [ReplicaGuard()]
do {
    _ = try await replicas.send(ListTodos(), accessToken: nil)
    check(false, "the plugin rejects a stale replica")
} catch {
    check(error is ReplicaGuard.StaleReplica, "the plugin rejects a stale replica")
}

let lines = Mutex<[String]>([])
let timed = NetworkManager(
    baseURL: URL(string: "https://api.example.com")!,
    transport: StubTransport(replies: [.status(503), .json(#"[{"id":1,"title":"Ship","done":false}]"#)]))
timed.plugins = [Waterfall(write: { line in lines.withLock { $0.append(line) } })]
_ = try await timed.send(RetriedTodos(), accessToken: nil)
let waterfall = lines.withLock { $0 }
for line in waterfall { print(line) }
check(
    waterfall.first?.hasSuffix("call_start GET https://api.example.com") == true
        && waterfall.last?.hasSuffix("call_end 200") == true
        && waterfall.filter { $0.contains("attempt_start") }.count == 2,
    "the waterfall prints the call's phases, two attempts between its start and its end")

let orders = StubTransport(replies: [.status(503), .json(#"{"id":"o-1"}"#)])
let order = try await RequestExecutor(transport: orders, randomUnit: { 0 }).send(
    PlaceOrder(), baseURL: URL(string: "https://api.test")!)
check(order.id == "o-1" && orders.requestCount == 2, "a POST with an Idempotency-Key is retried after a 503")

let logs = NetworkManager(
    baseURL: URL(string: "https://api.test")!,
    transport: StubTransport(replies: [
        StubTransport.Reply(
            status: 200,
            chunks: [
                Data(#"{"level":"info","message":"up"}"#.utf8 + [0x0A]),
                Data(#"{"level":"error","message":"disk full"}"#.utf8 + [0x0A] + #"{"level":"err"#.utf8),
                Data(#"or","message":"no space"}"#.utf8 + [0x0A]),
            ])
    ]))
let errors = try await tailErrors(logs)
check(errors == ["disk full", "no space"], "the NDJSON snippet streams records split across chunks")

let completions = NetworkManager(
    baseURL: URL(string: "https://api.test")!,
    transport: StubTransport(replies: [
        StubTransport.Reply(
            status: 200, headers: ["Content-Type": "text/event-stream"],
            chunks: [
                Data("data: {\"content\":\"Hel\"}\n\ndata: {\"con".utf8),
                Data("tent\":\"lo\"}\n\ndata: [DONE]\n\ndata: {\"content\":\"!\"}\n\n".utf8),
            ])
    ]))
check(try await complete(completions) == "Hello", "the typed-events snippet decodes deltas and stops at [DONE]")

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let archive = scratch.appendingPathComponent("backup.zip")
let archiveBytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
try archiveBytes.write(to: archive)
let backups = StubTransport(replies: [.status(503), .status(204)])
_ = try await NetworkManager(baseURL: URL(string: "https://api.test")!, transport: backups)
    .send(try backupRequest(for: archive), accessToken: nil)
check(
    backups.requests.count == 2 && backups.requests.allSatisfy { $0.body == archiveBytes },
    "a file body is read again in full for the retry after a 503"
)
check(
    backups.requests.first?.value(forHeader: "Content-Type") == "application/zip",
    "a file body's type comes from its extension")
do {
    _ = try backupRequest(for: scratch.appendingPathComponent("missing.zip"))
    check(false, "a missing file is refused when the body is made")
} catch {
    check(error is UploadSourceError, "a missing file is refused when the body is made")
}

let datasetBytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 3) })
let datasets = StubTransport(replies: [
    StubTransport.Reply(status: 200, headers: ["Content-Length": "100000", "ETag": #""v1""#], chunks: [datasetBytes])
])
let dataset = try await downloadDataset(
    "cities.csv", to: scratch.appendingPathComponent("cities.csv"),
    through: NetworkManager(baseURL: URL(string: "https://api.test")!, transport: datasets))
check(
    try Data(contentsOf: dataset) == datasetBytes
        && datasets.requests.first?.value(forHeader: "Accept-Encoding") == "identity",
    "the download snippet writes the whole file in place, having asked for the unencoded bytes")

/// The README's OpenAPI snippet takes any authenticator whose credential is a string.
struct SnippetAuthenticator: Authenticator {
    func apply(_ credential: String, to request: inout TransportRequest) throws {
        try request.setHeader("Authorization", "Bearer \(credential)")
    }
    func refresh(_ credential: String) async throws -> String { "renewed" }
}
let openAPI = openAPITransport(refreshing: SnippetAuthenticator())
check(
    openAPI.retryPolicy?.maxRetryCount == 2 && openAPI.timeout == .seconds(30)
        && openAPI.idempotentOperations == ["createTodo"],
    "the OpenAPI transport carries the README's retries, timeout and idempotent operations")
check(loggingManager().logger.minimumLevel == .info, "a swift-log Logger at info makes NetKit log from info up")
check(measuredManager().plugins.contains { $0 is MetricsPlugin }, "the metrics plugin is installed")

/// A GET of the todo list that retries once after a 50 ms wait.
struct RetriedTodos: NetworkRequest {
    typealias Response = [Todo]
    var path: String { "/todos" }
    var method: HTTPMethod { .get }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0.05, jitter: .none) }
}

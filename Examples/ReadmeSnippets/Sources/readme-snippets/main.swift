// Runs the README's snippets that can run without a network and checks what they did.
import Foundation
import NetKit
import NetKitTesting

func check(_ condition: Bool, _ what: String) {
    guard condition else {
        print("FAILED: \(what)")
        exit(1)
    }
    print("ok: \(what)")
}

let todos = try await testableManager().send(ListTodos(), accessToken: { "my-token" })
check(todos.map(\.title) == ["Ship"], "the stubbed quick start retries the 503 and decodes the list")

let (manager, session) = signedInManager()
check(manager.tokenRefresher === session && manager.holdsRequestsDuringRefresh, "the sign-in example wires the refresher and the held line")

let notFound = HTTPError(statusCode: 404, data: Data(#"{"error": "todo 42 does not exist"}"#.utf8), headers: [:])
check(describe(notFound) == #"HTTP 404: {"error": "todo 42 does not exist"}"#, "errors print as the README says")

let replicas = NetworkManager(baseURL: URL(string: "https://api.test")!, transport: StubTransport(replies: [
    .json(#"[]"#, headers: ["X-Replica-Lag": "5"]),
]))
replicas.plugins = [ReplicaGuard()]
do {
    _ = try await replicas.send(ListTodos(), accessToken: nil)
    check(false, "the plugin rejects a stale replica")
} catch {
    check(error is ReplicaGuard.StaleReplica, "the plugin rejects a stale replica")
}

let orders = StubTransport(replies: [.status(503), .json(#"{"id":"o-1"}"#)])
let order = try await RequestExecutor(transport: orders, randomUnit: { 0 }).send(PlaceOrder(), baseURL: URL(string: "https://api.test")!)
check(order.id == "o-1" && orders.requestCount == 2, "a POST with an Idempotency-Key is retried after a 503")

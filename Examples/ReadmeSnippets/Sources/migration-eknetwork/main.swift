// Runs Docs/Migration/EKNetwork.md's snippets over a stub transport and checks what they did.
import Foundation
import NetKit
import NetKitTesting
import Checks

let api = URL(string: "https://api.example.com")!

let users = StubTransport(replies: [.json(#"{"id": 42, "name": "Ada"}"#)])
let user = try await loadUser(with: NetworkManager(baseURL: api, transport: users), token: "t-1")
check(
    user.name == "Ada" && users.requests.first?.value(forHeader: "Authorization") == "Bearer t-1",
    "an EKNetwork request sends its bearer token and decodes")

let store = TokenStore()
let refreshing = NetworkManager(
    baseURL: api,
    transport: StubTransport { request, _ in
        request.head.headerFields.value(for: "Authorization") == "Bearer fresh"
            ? .json(#"{"id": 1, "name": "Bo"}"#) : .status(401)
    })
refreshing.tokenRefresher = store
let names = try await withThrowingTaskGroup(of: String.self) { group in
    for _ in 0..<10 {
        group.addTask { try await refreshing.send(GetUser(id: 1), accessToken: { store.accessToken }).name }
    }
    var names: [String] = []
    for try await name in group { names.append(name) }
    return names
}
check(names.count == 10 && store.refreshCount == 1, "ten concurrent 401s share one refresh")

let orders = StubTransport(replies: [.status(503), .json(#"{"id": "o-1"}"#)])
let order = try await NetworkManager(baseURL: api, transport: orders).send(PlaceOrder())
check(order.id == "o-1" && orders.requestCount == 2, "a POST with an Idempotency-Key is retried after a 503")

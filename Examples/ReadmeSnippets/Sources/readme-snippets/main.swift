// Runs the README's snippets that can run without a network and checks what they did.
import Foundation
import NetKit

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

// Runs Docs/Migration/NetworkKit.md's snippets over stub transports and checks what they did.
import Foundation
import NetKit
import NetKitTesting
import Checks

let api = URL(string: "https://api.example.com")!
let signUps = StubTransport(replies: [
    .json(#"{"code": "taken", "message": "That address has an account."}"#, status: 409),
    .json(#"{"code": "closed", "message": "Sign-ups are closed."}"#),
    .json(#"{"accountID": "a-1"}"#),
    .text("<html>Bad gateway</html>", status: 502),
])
let manager = NetworkManager(baseURL: api, transport: signUps)
let taken = try await signUp(manager, email: "ada@example.com")
check(
    (try? taken.get()) == nil && { if case .failure(let e) = taken { e.code == "taken" } else { false } }(),
    "a 409 with an error object is the server's error")
let closed = try await signUp(manager, email: "ada@example.com")
check(
    { if case .failure(let e) = closed { e.code == "closed" } else { false } }(),
    "an error object inside a 200 is checked before the success model")
let created = try await signUp(manager, email: "bo@example.com")
check((try? created.get())?.accountID == "a-1", "a success decodes")
do {
    _ = try await signUp(manager, email: "cy@example.com")
    check(false, "an error body that is not the model fails")
} catch {
    check(
        (error as? HTTPError)?.statusCode == 502,
        "an error body that is not the model is an HTTPError, not a DecodingError")
}

let gate = StubGate()
let held = StubTransport()
held.stub(reply: StubTransport.Reply.json(#"{"accountID": "never"}"#).held(by: gate))
let outcome = AsyncStream<Result<SignUpResult, any Error>>.makeStream()
let task = cancellableSignUp(NetworkManager(baseURL: api, transport: held)) { outcome.continuation.yield($0) }
await gate.waitForArrivals()
task.cancel()
let cancelled = await firstValue(of: outcome.stream)
check(
    { if case .failure(let error)? = cancelled { error is CancellationError } else { false } }(),
    "a cancelled task completes with CancellationError")

let origin = StubTransport()
origin.stub(
    .path("/profile"),
    replies: [
        .json(#"{"accountID": "a-1"}"#, headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"]),
        .status(304, headers: ["ETag": "\"v1\""]),
    ])
let caching = cachingManager(transport: origin)
let first = try await caching.request("/profile").decode(SignUpResult.self)
let second = try await caching.request("/profile").decode(SignUpResult.self)
check(
    first.accountID == "a-1" && second.accountID == "a-1"
        && origin.requests.last?.value(forHeader: "If-None-Match") == "\"v1\"",
    "a revalidated 304 returns the stored body"
)

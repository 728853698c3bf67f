// Runs Docs/Migration/SmartNetwork.md's snippets over stub transports and checks what they did.
import Foundation
import NetKit
import NetKitTesting
import Checks
import Synchronization

let (manager, stubs) = stubbedManager()
let info = try await infoAsync(manager)
check(info.name == "stubbed" && stubs.requests.last?.url?.query == "verbose=1", "a one-off fluent request decodes")

let delivered = AsyncStream<Result<TestInfo, any Error>>.makeStream()
let task = infoWithCompletion(manager) { delivered.continuation.yield($0) }
let completed = await firstValue(of: delivered.stream)
check((try? completed?.get())?.id == 1 && !task.isCancelled, "the completion handler receives the decoded value")

let flags = try await featureFlags(manager)
check(flags == .object(["beta": .bool(true)]), "untyped JSON decodes as JSONValue")

stubs.stub(.path("/avatar.png"), reply: .data(Data([0x89, 0x50, 0x4E, 0x47])))
check(try await manager.send(Avatar()) == Data([0x89, 0x50, 0x4E, 0x47]), "a Data response is the body's bytes")

stubs.stub(.path("/members"), reply: .json(#"{"data": {"users": [{"name": "Ada"}]}}"#))
check(try await manager.send(ListMembers()).map(\.name) == ["Ada"], "a response key path decodes the nested value")

stubs.stub(.path("/down"), reply: .status(503))
manager.plugins = [MaintenanceFallback()]
let fallback = try await manager.request("/down").decode([String].self)
check(fallback.isEmpty, "a plugin's .replace turns a 503 into the answer")
do {
    _ = try await manager.request("/nowhere").data()
    check(false, "a request no stub matches fails")
} catch {
    check(stubs.unmatchedRequests.count == 1, "a request no stub matches fails and is reported")
}

// The StopTheLine port: five requests get a 401 at once, and the refresh runs once.
/// Counts the requests that reached the server with the old token and holds each one's 401 until a number of them
/// have: then all five are known to meet a 401, none held by the line, whatever the scheduling.
actor Unauthorized {
    private var served = 0
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func serve() {
        served += 1
        waiters.removeAll { waiter in
            guard served >= waiter.count else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    func wait(until count: Int) async {
        guard served < count else { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }
}
let unauthorized = Unauthorized()
let refreshes = Mutex(0)
let store = TokenStore(token: "expired") {
    refreshes.withLock { $0 += 1 }
    return "renewed"
}
let guarded = StubTransport { request, _ in
    guard request.value(forHeader: "Authorization") == "Bearer renewed" else {
        await unauthorized.serve()
        await unauthorized.wait(until: 5)
        return .status(401)
    }
    return .json(#"{"name": "Ada"}"#)
}
let held = NetworkManager(baseURL: URL(string: "https://api.test")!, transport: guarded)
stopTheLineOnUnauthorized(held, store: store)
let profiles = try await withThrowingTaskGroup(of: Profile.self) { group in
    for _ in 0..<5 { group.addTask { try await loadProfile(held, store: store) } }
    var names: [String] = []
    for try await profile in group { names.append(profile.name) }
    return names
}
check(
    profiles == Array(repeating: "Ada", count: 5) && refreshes.withLock({ $0 }) == 1 && guarded.requestCount == 10,
    "StopTheLine ported as the refresher: five concurrent 401s, one refresh, each request sent once more")

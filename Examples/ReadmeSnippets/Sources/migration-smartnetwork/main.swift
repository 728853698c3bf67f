// Runs Docs/Migration/SmartNetwork.md's snippets over stub transports and checks what they did.
import Foundation
import NetKit
import NetKitTesting
import Checks

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

// linux-facts <fact>: each fact starts its own server on 127.0.0.1, measures one thing about URLSession on Linux
// (FoundationNetworking, on libcurl) and, where NetKit does something about it, the same through NetKit.
// Docs/Linux.md gives the figures measured with these programs and what to do about each fact.
import Foundation

// `memory` first: in `all`, the large bodies of later facts would leave freed pages behind that hide its growth.
let facts: [(name: String, summary: String, run: () async throws -> Void)] = [
    ("memory", "resident memory kept per request", memoryFact),
    ("cookie", "a request's own Cookie header against the session's stored cookies", cookieFact),
    ("urlcache", "whether URLCache stores a cacheable response", urlCacheFact),
    ("headers", "a response header with obs-text bytes; a status line without a reason phrase", headersFact),
    ("shared-queue", "a delegate that blocks stalls every session of the process", sharedQueueFact),
    ("backpressure", "a slow consumer does not slow the server: the body piles up in memory", backpressureFact),
    ("trickle", "CPU burnt while a response body trickles in", trickleFact),
    ("suspend", "URLSessionTask.suspend() and resume() in the middle of a body", suspendFact),
    ("metrics", "whether URLSessionTaskMetrics are delivered", metricsFact),
    ("timeout", "timeoutInterval in whole seconds; timeoutIntervalForResource ignored", timeoutFact),
    ("tiny-chunks", "peak memory of a body sent as one-byte chunks, raw and through NetKit", tinyChunksFact),
]

let arguments = CommandLine.arguments.dropFirst()
let chosen = arguments.first ?? "help"
if chosen == "all" {
    for fact in facts {
        print("== \(fact.name): \(fact.summary)")
        try await fact.run()
        print()
    }
} else if let fact = facts.first(where: { $0.name == chosen }) {
    print("== \(fact.name): \(fact.summary)")
    try await fact.run()
} else {
    print("usage: linux-facts <fact>|all")
    for fact in facts { print("  \(fact.name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(fact.summary)") }
    if chosen != "help" { exit(2) }
}

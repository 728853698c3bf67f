// netkit-demo: NetKit's main job, end to end, against a local HTTP server the demo starts itself.
// One section per file; the server's routes are in DemoServer.swift.
import Foundation
import NetKit

// The title goes out before anything else can write, piped or not.
Output.line("NetKit \(NetKitVersion.current) demo")

let started = ContinuousClock.now
let server = try DemoServer()
defer { server.stop() }
Output.line("A local API on \(server.baseURL.absoluteString), started by the demo; every request below goes to it.")

// `netkit-demo --serve`: only the API, for a day or until Ctrl-C, so tests can record HAR fixtures against it
// (Docs/Testing.md).
if CommandLine.arguments.contains("--serve") {
    Output.line("Serving until Ctrl-C (routes in Sources/netkit-demo/DemoRoutes.swift).")
    try await Task.sleep(for: .seconds(86_400))
    exit(0)
}

let demo = Demo(server: server)
try await demo.typedRequests()
try await demo.tokenRefresh()
try await demo.retryAfter()
try await demo.upload()
try await demo.download()
try await demo.streaming()
try await demo.cachedGet()

Output.section("Done")
Output.line("\(server.requestCount) requests answered in \(Output.seconds(ContinuousClock.now - started)).")

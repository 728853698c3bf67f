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

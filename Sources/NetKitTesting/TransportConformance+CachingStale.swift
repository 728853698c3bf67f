import Foundation
import LoopbackServer
import NetCore
import NetKitLock

extension TransportConformance {
    /// RFC 5861 §3: a response stale at once but within its `stale-while-revalidate` window answers at once, while
    /// its validation reaches the server in the background. The server holds the validation behind a gate until the
    /// caller has its answer: a cache that waited for the validation would get its answer only after the gate's
    /// 10 s, and fail.
    static let cachingStaleWhileRevalidate = TransportConformanceCheck("cache: RFC 5861 §3 stale-while-revalidate") {
        context in
        let gate: LoopbackGate
        do {
            gate = try LoopbackGate()
        } catch {
            throw context.failure("could not make the loopback gate: \(error)")
        }
        // Opened on every way out, so that a held validation ends before the server stops.
        defer { gate.open() }
        let validationAnswered = Lock(false)
        let rig = try CachingRig(context, rule: "RFC 5861 §3") { request, _ in
            guard request.header("If-None-Match") == nil else {
                _ = gate.wait(timeout: .seconds(10))
                validationAnswered.withLock { $0 = true }
                return LoopbackResponse(status: 304, headers: [(name: "ETag", value: #""v1""#)])
            }
            return LoopbackResponse(
                headers: [
                    (name: "ETag", value: #""v1""#),
                    (name: "Cache-Control", value: "max-age=0, stale-while-revalidate=600"),
                ],
                body: Data("stored".utf8))
        }
        defer { rig.server.stop() }
        _ = try await rig.send("/swr")
        let stale = try await rig.send("/swr")
        try context.expect(
            stale.text == "stored" && !validationAnswered.withLock({ $0 }),
            "RFC 5861 §3: within stale-while-revalidate the stored response should answer at once, before its "
                + "validation is answered; got \(stale.text.debugDescription)"
                + (validationAnswered.withLock({ $0 }) ? " only after the validation was answered" : ""))
        // Signalled by the server's count, within the check's time limit: how soon a background task runs depends on
        // how busy the machine is (a fixed 10 s once ran out in the full trait suite).
        try await context.await(
            .requests, atLeast: 2, on: rig.server,
            "RFC 5861 §3: the background validation (If-None-Match: \"v1\") never reached the server; it saw "
                + "\(rig.count("GET /swr")) GET /swr")
        try context.expect(
            rig.server.requests.contains { $0.header("If-None-Match") == #""v1""# },
            "RFC 5861 §3: the second request was not the background validation (If-None-Match: \"v1\")")
    }

    /// RFC 5861 §4: a response stale at once but within its `stale-if-error` window answers in place of a 503, and
    /// of a connection the server drops without answering.
    static let cachingStaleIfError = TransportConformanceCheck("cache: RFC 5861 §4 stale-if-error") { context in
        let rig = try CachingRig(context, rule: "RFC 5861 §4") { request, count in
            guard count == 1 else {
                return request.path == "/dropped"
                    ? LoopbackResponse(faults: [.closeWithoutResponse])
                    : LoopbackResponse(status: 503, body: Data("unavailable".utf8))
            }
            return LoopbackResponse(
                headers: [(name: "Cache-Control", value: "max-age=0, stale-if-error=600")], body: Data("stored".utf8))
        }
        defer { rig.server.stop() }
        for path in ["/503", "/dropped"] {
            _ = try await rig.send(path)
            let second = try await rig.send(path)
            // The server must have been asked again (a transport may itself resend once on a dropped kept-alive
            // connection, as URLSession does).
            try context.expect(
                second.status == 200 && second.text == "stored" && rig.count("GET \(path)") >= 2,
                "RFC 5861 §4: with \(path == "/503" ? "a 503" : "the connection dropped"), stale-if-error should "
                    + "answer \"stored\" after asking the server again; got \(second.status) "
                    + "\(second.text.debugDescription), the server was asked \(rig.count("GET \(path)")) times")
        }
    }
}

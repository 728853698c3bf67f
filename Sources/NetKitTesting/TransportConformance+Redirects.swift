import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// Redirects are followed to the final URL; `Authorization`, `Proxy-Authorization` and `Cookie` stay with
    /// the origin they were meant for (127.0.0.1 and localhost are different origins).
    static let redirects = TransportConformanceCheck("redirects") { context in
        let server = try context.server { request in
            switch request.path {
            case "/away":
                LoopbackResponse(
                    status: 302,
                    headers: [(name: "Location", value: "http://localhost:\(request.header("X-Port") ?? "")/landing")])
            case "/near":
                LoopbackResponse(status: 302, headers: [(name: "Location", value: "/landing")])
            default:
                .text(
                    ["Authorization", "Proxy-Authorization", "Cookie"].map { request.header($0) ?? "-" }.joined(
                        separator: " | "))
            }
        }
        defer { server.stop() }
        let headers = [
            (name: "Authorization", value: "Bearer secret"),
            (name: "Proxy-Authorization", value: "Basic cHJveHk6c2VjcmV0"),
            (name: "Cookie", value: "session=secret"),
            (name: "X-Port", value: "\(server.port)"),
        ]
        let away = try await context.send(
            try context.request(server.baseURL.appendingPathComponent("away"), headers: headers), "GET /away")
        let awayText = try await context.text(away.body)
        guard context.options.followsRedirects else {
            try context.expect(
                away.statusCode == 302,
                "a transport that does not follow redirects must return the 302, got \(away.statusCode)")
            return
        }
        try context.expect(
            away.statusCode == 200, "the redirect to another origin ended with status \(away.statusCode)")
        try context.expect(
            away.url?.host == "localhost" && away.url?.path == "/landing",
            "the response's URL is \(away.url?.absoluteString ?? "nil"), expected the final one")
        try context.expect(awayText == "- | - | -", "credentials followed a redirect to another origin: \(awayText)")
        let near = try await context.send(
            try context.request(server.baseURL.appendingPathComponent("near"), headers: headers), "GET /near")
        let nearText = try await context.text(near.body)
        try context.expect(
            nearText == "Bearer secret | Basic cHJveHk6c2VjcmV0 | session=secret",
            "credentials were dropped on a redirect within the origin: \(nearText)")
    }
}

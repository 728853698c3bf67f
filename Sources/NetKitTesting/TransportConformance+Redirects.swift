import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// Every `3xx` comes back as it was sent, never followed: its status, its `Location`, each `Set-Cookie`, its
    /// body. NetKit's engine follows redirects itself (``NetCore/RedirectPolicy``), so that credentials, cookies
    /// and the cache see each hop the same on every transport; a transport that followed one would skip all three.
    static let redirects = TransportConformanceCheck("redirects") { context in
        let server = try context.server { request in
            if request.path == "/landing" { return .text("landed") }
            let status = Int(request.path.dropFirst()) ?? 302
            return LoopbackResponse(
                status: status,
                headers: [
                    (name: "Location", value: "/landing"), (name: "Set-Cookie", value: "a=1; Path=/"),
                    (name: "Set-Cookie", value: "b=2; Path=/"),
                ],
                body: Data("moved \(request.method) \(request.body.count)".utf8))
        }
        defer { server.stop() }
        for status in [301, 302, 303, 307, 308] {
            for whole in [false, true] {
                let url = server.baseURL.appendingPathComponent("\(status)")
                var request = try context.request(url, method: .post, body: UploadSource(data: Data("abc".utf8)))
                if whole { request = context.wholeBody(request) }
                let road = whole ? "collected whole" : "streamed"
                let response = try await context.send(request, "POST /\(status) (\(road))")
                let text = try await context.text(response.body)
                try context.expect(
                    response.statusCode == status,
                    "a \(status) (\(road)) came back as \(response.statusCode): the transport followed the redirect, "
                        + "which only the engine may do")
                try context.expect(
                    response.head.headerFields.value(for: "Location") == "/landing",
                    "the \(status)'s Location did not come back as sent (\(road))")
                try context.expect(
                    response.head.headerFields.values(for: "Set-Cookie") == ["a=1; Path=/", "b=2; Path=/"],
                    "the \(status)'s Set-Cookie fields did not come back one by one (\(road))")
                try context.expect(
                    text == "moved POST 3", "the \(status)'s body came back as \(text.debugDescription) (\(road))")
            }
        }
        try context.expect(
            !server.requests.contains { $0.path == "/landing" }, "the transport went to a redirect's Location")
    }
}

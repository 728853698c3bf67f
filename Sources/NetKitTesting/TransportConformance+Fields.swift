import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// A field given several times reaches the server with every value, in order: as separate fields, or joined
    /// with `", "` into one where the stack cannot send a name twice (RFC 9110 §5.3), whatever case each was
    /// given in. Nothing is dropped, reordered or joined any other way.
    static let repeatedRequestFields = TransportConformanceCheck("repeated request fields") { context in
        let server = try context.server { request in
            .text(request.headers.filter { $0.name.lowercased() == "x-repeated" }.map(\.value).joined(separator: "\n"))
        }
        defer { server.stop() }
        var request = try context.request(server.baseURL, headers: [(name: "X-Repeated", value: "a")])
        do {
            try request.addHeader("X-Repeated", "b")
            try request.head.headerFields.addValue("c d", for: "x-repeated")
        } catch {
            throw context.failure("adding a repeated field failed: \(error)")
        }
        let response = try await context.send(request)
        let fields = try await context.text(response.body).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        try context.expect(
            fields.joined(separator: ", ") == "a, b, c d",
            "X-Repeated, added as a, b and c d, reached the server as \(fields.count) field(s) \(fields); expected the three values in order, as separate fields or joined with \", \""
        )
    }

    /// Repeated response fields reach the caller apart: every `Set-Cookie` as a value of its own (an `Expires`
    /// date's comma does not split one), and any other repeated field with every value, in order.
    static let repeatedResponseFields = TransportConformanceCheck("repeated response fields") { context in
        // For another domain, and expired: a transport with a cookie store (URLSession's shared one persists to
        // disk, and sends what it holds for a host on every request to it) must refuse them (RFC 6265 §5.3), so
        // they reach no other check or program.
        let scope = "Domain=netkit-conformance.invalid; Path=/"
        let cookies = [
            "a=1; Max-Age=0; \(scope)",
            "b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT; \(scope); HttpOnly",
            "c=3; Max-Age=0; \(scope)",
        ]
        let server = try context.server { _ in
            LoopbackResponse(
                status: 200,
                headers: cookies.map { (name: "Set-Cookie", value: $0) } + [
                    (name: "X-Repeated", value: "a"),
                    (name: "X-Repeated", value: "b"),
                ],
                body: Data("ok".utf8)
            )
        }
        defer { server.stop() }
        let response = try await context.send(try context.request(server.baseURL))
        _ = try await context.collect(response.body)
        let fields = response.head.headerFields
        try context.expect(
            fields.values(for: "set-cookie") == cookies,
            "three Set-Cookie fields arrived as \(fields.values(for: "set-cookie")); expected each cookie as a value of its own: \(cookies)"
        )
        try context.expect(
            fields.values(for: "X-Repeated").joined(separator: ", ") == "a, b",
            "X-Repeated (sent as a, then b) read as \(fields.values(for: "X-Repeated")); expected both values in order"
        )
    }

    /// No API lets CR, LF or NUL reach the wire, where they would smuggle a header or a request: every way to set a
    /// header field (``NetCore/HTTPHeaderFields``, ``NetCore/HTTPHeaderField``, ``NetCore/TransportRequest``'s
    /// `setHeader` and `addHeader`) and every setter of the target (``NetCore/HTTPRequestHead``) throws, and leaves the
    /// request as it was; the request then sent carries nothing of what was refused.
    static let noControlCharactersOnTheWire = TransportConformanceCheck("no CR, LF or NUL on the wire") { context in
        let server = try context.server { _ in .text("ok") }
        defer { server.stop() }
        let original = try context.request(
            server.baseURL.appendingPathComponent("target"), headers: [(name: "X-Kept", value: "1")])
        var request = original
        var accepted: [String] = []

        /// Tries `mutate` on the request; a mutation that does not throw is a broken promise, and is kept so that
        /// the server shows what it let through.
        func attempt(_ api: String, _ mutate: (inout TransportRequest) throws -> Void) {
            var copy = request
            do {
                try mutate(&copy)
                accepted.append(api)
                request = copy
            } catch {
                if !(error is NetworkError) { accepted.append("\(api) (threw \(error), not a NetworkError)") }
            }
        }

        let smuggled = "X-Smuggled: yes"
        let values = [
            "v\r\n\(smuggled)", "v\n\(smuggled)", "v\r\(smuggled)", "v\0\(smuggled)", "v\r\n\r\nGET /smuggled HTTP/1.1",
        ]
        let names = [
            "X-Bad\r\n\(smuggled)", "X-Bad\n\(smuggled)", "X-Bad\r", "X-Bad\0", "X-Bad: v\r\n\(smuggled)", "X Bad", "",
        ]
        for value in values {
            let shown = value.debugDescription
            attempt("HTTPHeaderFields.setValue(\(shown))") { try $0.head.headerFields.setValue(value, for: "X-Kept") }
            attempt("HTTPHeaderFields.addValue(\(shown))") { try $0.head.headerFields.addValue(value, for: "X-Value") }
            attempt("HTTPHeaderFields([name: \(shown)])") {
                $0.head.headerFields = try HTTPHeaderFields(["X-Value": value])
            }
            attempt("HTTPHeaderFields([(name, \(shown))])") {
                $0.head.headerFields = try HTTPHeaderFields([(name: "X-Value", value: value)])
            }
            attempt("HTTPHeaderField(name:value: \(shown))") {
                $0.head.headerFields.append(try HTTPHeaderField(name: "X-Value", value: value))
            }
            attempt("TransportRequest.setHeader(\(shown))") { try $0.setHeader("X-Kept", value) }
            attempt("TransportRequest.addHeader(\(shown))") { try $0.addHeader("X-Value", value) }
        }
        for name in names {
            let shown = name.debugDescription
            attempt("HTTPHeaderFields.setValue(for: \(shown))") { try $0.head.headerFields.setValue("v", for: name) }
            attempt("HTTPHeaderFields.addValue(for: \(shown))") { try $0.head.headerFields.addValue("v", for: name) }
            attempt("HTTPHeaderFields([\(shown): value])") { $0.head.headerFields = try HTTPHeaderFields([name: "v"]) }
            attempt("HTTPHeaderFields([(\(shown), value)])") {
                $0.head.headerFields = try HTTPHeaderFields([(name: name, value: "v")])
            }
            attempt("HTTPHeaderField(name: \(shown))") {
                $0.head.headerFields.append(try HTTPHeaderField(name: name, value: "v"))
            }
            attempt("TransportRequest.setHeader(\(shown))") { try $0.setHeader(name, "v") }
            attempt("TransportRequest.addHeader(\(shown))") { try $0.addHeader(name, "v") }
        }
        let authority = original.head.authority
        let targets = [
            "/target\r\n\(smuggled)", "/target\n\(smuggled)", "/target\0",
            "/target HTTP/1.1\r\n\(smuggled)\r\n\r\nGET /smuggled",
        ]
        for path in targets {
            let shown = path.debugDescription
            attempt("HTTPRequestHead.setPath(\(shown))") { try $0.head.setPath(path) }
            attempt("HTTPRequestHead.setTarget(path: \(shown))") {
                try $0.head.setTarget(scheme: "http", authority: authority, path: path)
            }
            attempt("HTTPRequestHead(path: \(shown))") {
                $0.head = try HTTPRequestHead(method: .get, scheme: "http", authority: authority, path: path)
            }
            let query = String(path.dropFirst("/target".count))
            attempt("HTTPRequestHead.setQuery(\(query.debugDescription))") { try $0.head.setQuery("a=1" + query) }
            attempt("HTTPRequestHead.setTarget(authority: \(shown))") {
                try $0.head.setTarget(scheme: "http", authority: authority + String(path.dropFirst()), path: "/target")
            }
            attempt("HTTPRequestHead.setTarget(scheme: \(shown))") {
                try $0.head.setTarget(scheme: "http" + String(path.dropFirst()), authority: authority, path: "/target")
            }
        }
        try context.expect(
            accepted.isEmpty,
            "\(accepted.count) call(s) accepted CR, LF, NUL or an invalid name instead of throwing: \(accepted.joined(separator: "; "))"
        )
        try context.expect(
            request.head == original.head, "a refused change altered the request: \(request.head.headerFields)")

        let response = try await context.send(request)
        _ = try await context.collect(response.body)
        let seen = server.requests
        try context.expect(
            seen.count == 1, "the server received \(seen.count) requests for one sent: a request was smuggled")
        guard let first = seen.first else { return }
        try context.expect(first.target == "/target", "the server saw the target \(first.target.debugDescription)")
        let fields = first.headers.map { "\($0.name): \($0.value)" }
        try context.expect(
            first.header("X-Smuggled") == nil
                && !fields.contains { $0.contains("Smuggled") || $0.contains("X-Bad") || $0.contains("X-Value") },
            "the server saw a field that every API refused: \(fields)"
        )
        try context.expect(first.headerValues("X-Kept") == ["1"], "X-Kept arrived as \(first.headerValues("X-Kept"))")
    }
}

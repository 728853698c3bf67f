import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetCore

extension TransportConformance {
    /// Every common method reaches the server as it was given, with its body; HEAD gets no body back.
    static let methods = TransportConformanceCheck("methods") { context in
        let server = try context.server { request in
            LoopbackResponse(
                status: 200,
                headers: [(name: "X-Method", value: request.method)],
                body: Data("\(request.method) \(request.path) \(request.bodyText)".utf8)
            )
        }
        defer { server.stop() }
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] {
            let hasBody = ["POST", "PUT", "PATCH"].contains(method)
            let request = context.request(
                server.baseURL.appendingPathComponent("thing"),
                method: method,
                payload: hasBody ? .data(Data("payload".utf8)) : .empty
            )
            let response = try await context.send(request, "\(method)")
            let text = try await context.text(response.body, "the \(method) response")
            try context.expect(response.statusCode == 200, "\(method): status \(response.statusCode), expected 200")
            try context.expect(
                response.head.value(forHTTPHeaderField: "X-Method") == method,
                "\(method): the server saw \(response.head.value(forHTTPHeaderField: "X-Method") ?? "nothing")"
            )
            let expected = method == "HEAD" ? "" : "\(method) /thing \(hasBody ? "payload" : "")"
            try context.expect(text == expected, "\(method): the body was \(text.debugDescription), expected \(expected.debugDescription)")
        }
    }

    /// Request headers arrive as set, a header given twice arrives with both values, and framing headers are
    /// the transport's business.
    static let requestHeaders = TransportConformanceCheck("request headers") { context in
        let server = try context.server { request in
            let seen = ["X-Single", "X-Repeated", "Accept", "User-Agent"].map { name in
                "\(name)=\(request.headerValues(name).joined(separator: "|"))"
            }
            return .text(seen.joined(separator: "\n"))
        }
        defer { server.stop() }
        let request = context.request(server.baseURL, headers: [
            (name: "X-Single", value: "one two"),
            (name: "X-Repeated", value: "a"),
            (name: "X-Repeated", value: "b"),
            (name: "Accept", value: "application/x-conformance"),
            (name: "User-Agent", value: "conformance/1"),
        ])
        let response = try await context.send(request)
        let lines = try await context.text(response.body).split(separator: "\n").map(String.init)
        func values(_ name: String) -> [String] {
            guard let line = lines.first(where: { $0.hasPrefix("\(name)=") }) else { return [] }
            // A header given twice may travel as two fields or as one comma-separated field: both mean a, b.
            return line.dropFirst(name.count + 1).split(separator: "|").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        try context.expect(values("X-Single") == ["one two"], "X-Single arrived as \(values("X-Single"))")
        try context.expect(values("X-Repeated") == ["a", "b"], "X-Repeated (set twice) arrived as \(values("X-Repeated"))")
        try context.expect(values("Accept") == ["application/x-conformance"], "Accept arrived as \(values("Accept"))")
        try context.expect(values("User-Agent") == ["conformance/1"], "User-Agent arrived as \(values("User-Agent"))")
    }

    /// Response headers are found case-insensitively, repeated ones with every value in order, and the declared
    /// length is reported.
    static let responseHeaders = TransportConformanceCheck("response headers") { context in
        let server = try context.server { _ in
            LoopbackResponse(
                status: 200,
                headers: [
                    (name: "Content-Type", value: "text/plain"),
                    (name: "X-Single", value: "1"),
                    (name: "X-Repeated", value: "a"),
                    (name: "X-Repeated", value: "b"),
                ],
                body: Data("0123456789".utf8)
            )
        }
        defer { server.stop() }
        let response = try await context.send(context.request(server.baseURL))
        _ = try await context.collect(response.body)
        let head = response.head
        try context.expect(head.value(forHTTPHeaderField: "x-single") == "1", "x-single (any case) read as \(head.value(forHTTPHeaderField: "x-single") ?? "nil")")
        try context.expect(head.value(forHTTPHeaderField: "Content-Type") == "text/plain", "Content-Type read as \(head.value(forHTTPHeaderField: "Content-Type") ?? "nil")")
        let repeated = head.value(forHTTPHeaderField: "X-Repeated")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        try context.expect(repeated == ["a", "b"], "X-Repeated (sent twice) read as \(head.value(forHTTPHeaderField: "X-Repeated") ?? "nil"), expected \"a, b\"")
        try context.expect(response.declaredLength == 10, "the declared length is \(response.declaredLength.map(String.init) ?? "nil"), expected 10")
    }

    /// Each status is handed over as the server sent it, with its body; a 204 ends cleanly without one.
    static let statusCodes = TransportConformanceCheck("status codes") { context in
        let server = try context.server { request in
            let status = Int(request.path.dropFirst()) ?? 500
            return status == 204 ? LoopbackResponse(status: 204) : .text("status \(status)", status: status)
        }
        defer { server.stop() }
        for status in [200, 201, 202, 204, 400, 403, 404, 409, 418, 422, 429, 500, 502, 503] {
            let response = try await context.send(context.request(server.baseURL.appendingPathComponent("\(status)")), "GET /\(status)")
            let text = try await context.text(response.body, "the \(status) body")
            try context.expect(response.statusCode == status, "status \(status) arrived as \(response.statusCode)")
            let expected = status == 204 ? "" : "status \(status)"
            try context.expect(text == expected, "the \(status) body was \(text.debugDescription), expected \(expected.debugDescription)")
        }
    }

    /// A connection refused ends `send` with an error (`URLError(.cannotConnectToHost)` for NetKit's transports).
    static let refusedConnection = TransportConformanceCheck("refused connection") { context in
        let server = try context.server { _ in .text("") }
        let url = server.baseURL
        server.stop()
        do {
            let response = try await context.transport.send(context.request(url))
            throw context.failure("a request to a closed port got status \(response.statusCode)")
        } catch let error as URLError where error.code == .cannotConnectToHost {
            return
        } catch let failure as TransportConformanceFailure {
            throw failure
        } catch {
            try context.expect(
                !context.options.requiresURLErrorCodes,
                "a refused connection failed with \(String(reflecting: error)); expected URLError(.cannotConnectToHost)"
            )
        }
    }
}

import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// Every common method reaches the server as it was given, with its body, and so do methods outside
    /// ``HTTPMethod`` (`QUERY` with a body, WebDAV's `PROPFIND`, `M-SEARCH`, a lowercase `purge`) spelled as given;
    /// HEAD gets no body back.
    static let methods = TransportConformanceCheck("methods") { context in
        let server = try context.server { request in
            LoopbackResponse(
                status: 200,
                headers: [(name: "X-Method", value: request.method)],
                body: Data("\(request.method) \(request.path) \(request.bodyText)".utf8)
            )
        }
        defer { server.stop() }
        let extensions = ["QUERY", "PROPFIND", "M-SEARCH", "purge"].compactMap(HTTPRequestMethod.init(rawValue:))
        for method in [HTTPRequestMethod.get, .post, .put, .patch, .delete, .options, .head] + extensions {
            let hasBody = [.post, .put, .patch].contains(method) || method.rawValue == "QUERY"
            let request = try context.request(
                server.baseURL.appendingPathComponent("thing"),
                method: method,
                body: hasBody ? UploadSource(data: Data("payload".utf8)) : nil
            )
            let response = try await context.send(request, "\(method)")
            let text = try await context.text(response.body, "the \(method) response")
            try context.expect(response.statusCode == 200, "\(method): status \(response.statusCode), expected 200")
            try context.expect(
                response.head.value(forHeader: "X-Method") == method.rawValue,
                "\(method): the server saw \(response.head.value(forHeader: "X-Method") ?? "nothing")"
            )
            let expected = method == .head ? "" : "\(method.rawValue) /thing \(hasBody ? "payload" : "")"
            try context.expect(
                text == expected,
                "\(method): the body was \(text.debugDescription), expected \(expected.debugDescription)")
        }
    }

    /// Request headers arrive as set, each once with its value intact (the transport's own `Accept` and
    /// `User-Agent` give way to the request's), and framing headers are the transport's business.
    static let requestHeaders = TransportConformanceCheck("request headers") { context in
        let server = try context.server { request in
            let seen = ["X-Single", "Accept", "User-Agent"].map { name in
                "\(name)=\(request.headerValues(name).joined(separator: "|"))"
            }
            return .text(seen.joined(separator: "\n"))
        }
        defer { server.stop() }
        let request = try context.request(
            server.baseURL,
            headers: [
                (name: "X-Single", value: "one two, three"),
                (name: "Accept", value: "application/x-conformance"),
                (name: "User-Agent", value: "conformance/1"),
            ])
        let response = try await context.send(request)
        let lines = try await context.text(response.body).split(separator: "\n").map(String.init)
        func values(_ name: String) -> String {
            lines.first { $0.hasPrefix("\(name)=") }.map { String($0.dropFirst(name.count + 1)) } ?? ""
        }
        try context.expect(
            values("X-Single") == "one two, three", "X-Single arrived as \(values("X-Single").debugDescription)")
        try context.expect(
            values("Accept") == "application/x-conformance", "Accept arrived as \(values("Accept").debugDescription)")
        try context.expect(
            values("User-Agent") == "conformance/1", "User-Agent arrived as \(values("User-Agent").debugDescription)")
    }

    /// Response headers are found case-insensitively, and the declared length is reported.
    static let responseHeaders = TransportConformanceCheck("response headers") { context in
        let server = try context.server { _ in
            LoopbackResponse(
                status: 200,
                headers: [
                    (name: "Content-Type", value: "text/plain"),
                    (name: "X-Single", value: "1"),
                ],
                body: Data("0123456789".utf8)
            )
        }
        defer { server.stop() }
        let response = try await context.send(try context.request(server.baseURL))
        _ = try await context.collect(response.body)
        let head = response.head
        try context.expect(
            head.value(forHeader: "x-single") == "1",
            "x-single (any case) read as \(head.value(forHeader: "x-single") ?? "nil")")
        try context.expect(
            head.value(forHeader: "Content-Type") == "text/plain",
            "Content-Type read as \(head.value(forHeader: "Content-Type") ?? "nil")")
        try context.expect(
            response.declaredLength == 10,
            "the declared length is \(response.declaredLength.map(String.init) ?? "nil"), expected 10")
    }

    /// Each status is handed over as the server sent it, with its body, whether the body streams or is collected
    /// whole (``NetCore/TransportRequest/wholeBody``); a 204 ends cleanly without one.
    static let statusCodes = TransportConformanceCheck("status codes") { context in
        let server = try context.server { request in
            let status = Int(request.path.dropFirst()) ?? 500
            return status == 204 ? LoopbackResponse(status: 204) : .text("status \(status)", status: status)
        }
        defer { server.stop() }
        for whole in [false, true] {
            let road = whole ? " (collected whole)" : ""
            for status in [200, 201, 202, 204, 400, 403, 404, 409, 418, 422, 429, 500, 502, 503] {
                var request = try context.request(server.baseURL.appendingPathComponent("\(status)"))
                if whole { request = context.wholeBody(request) }
                let response = try await context.send(request, "GET /\(status)\(road)")
                let text = try await context.text(response.body, "the \(status) body\(road)")
                try context.expect(
                    response.statusCode == status, "status \(status) arrived as \(response.statusCode)\(road)")
                let expected = status == 204 ? "" : "status \(status)"
                try context.expect(
                    text == expected,
                    "the \(status) body\(road) was \(text.debugDescription), expected \(expected.debugDescription)")
            }
        }
    }
}

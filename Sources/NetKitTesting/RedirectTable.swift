import Foundation
import LoopbackServer
import NetCore
import NetKitLock

/// Redirect chains on 127.0.0.1 and what NetKit's engine makes of each over a given transport: the executable rows
/// of the redirect and credential table in Docs/Reliability.md.
///
/// Every row has one expected outcome for every transport: the engine decides each hop, and a transport only hands
/// the `3xx` back. Two origins share each row's server: `http://127.0.0.1:port` (the engine's base URL, where the
/// credentials belong) and `http://localhost:port` (another origin).
package enum RedirectTable {
    /// One chain.
    package struct Row: Sendable {
        /// The row's name in the table.
        package let name: String
        /// What every transport must end with.
        package let expected: String
        /// Sends the row's requests through `engine` (base URL `base`, another origin at `other`).
        let run: @Sendable (_ engine: RequestExecutor, _ base: URL, _ other: URL) async throws -> String
        /// Changes the engine before the row runs.
        var configure: @Sendable (inout RequestExecutor) -> Void = { _ in }
    }

    /// Runs `row` over `transport`, each row with a server of its own, and says how it ended: the landing's echo of
    /// what reached it, or the error.
    package static func run(_ row: Row, on transport: any HTTPTransport) async throws -> String {
        let server = try LoopbackServer(handler: answer)
        defer { server.stop() }
        guard let other = URL(string: "http://localhost:\(server.port)") else { throw NetworkError.invalidURL }
        var engine = RequestExecutor(transport: transport, plugins: [PluginKey()], defaultTimeout: .seconds(30))
        engine.builder.defaultHeaders = ["X-Api-Key": "k1"]
        engine.credentialFields = CredentialFields(headerNames: ["X-Api-Key"])
        row.configure(&engine)
        do {
            return try await row.run(engine, server.baseURL, other)
        } catch let error as RedirectError {
            return "RedirectError.\(error.reason)"
        } catch let error as TransportError {
            return "TransportError.\(error.kind)"
        } catch let error as HTTPError {
            return "HTTPError \(error.statusCode)"
        } catch {
            return "\(type(of: error)): \(error)"
        }
    }

    /// The echo of a `GET` that reached `/echo` with every credential (and the request's own `Content-Type`).
    private static let full = "GET body= auth=Bearer t1 key=k1 plugin=p1 custom=c cookie=- type=application/json"
    /// The echo of a request turned into a `GET`: the body and its `Content-Type` dropped.
    private static let rewritten = "GET body= auth=Bearer t1 key=k1 plugin=p1 custom=c cookie=- type=-"

    /// Every row.
    package static let rows: [Row] = [
        Row(name: "302 within the origin keeps every credential", expected: full) { engine, base, _ in
            try await get(engine, "/redirect/302/same", base)
        },
        Row(
            name: "302 to another origin carries no credential and no custom header",
            expected: "GET body= auth=- key=- plugin=- custom=- cookie=- type=-"
        ) { engine, base, _ in
            try await get(engine, "/redirect/302/other", base)
        },
        Row(
            name: "a request to another origin than the base URL gets no engine credential, keeps its own",
            expected: "GET body= auth=- key=- plugin=- custom=c cookie=- type=application/json"
        ) { engine, base, other in
            try await get(engine, "/echo", base, requestBase: other)
        },
        Row(name: "307 POST within the origin sends the body again", expected: post("POST")) { engine, base, _ in
            try await send(engine, "/redirect/307/same", base, method: .post)
        },
        Row(name: "308 POST within the origin sends the body again", expected: post("POST")) { engine, base, _ in
            try await send(engine, "/redirect/308/same", base, method: .post)
        },
        Row(name: "307 POST of a file within the origin sends the file again", expected: post("POST")) {
            engine, base, _ in
            try await send(engine, "/redirect/307/same", base, method: .post, fromFile: true)
        },
        Row(name: "302 PUT within the origin keeps method and body", expected: post("PUT")) { engine, base, _ in
            try await send(engine, "/redirect/302/same", base, method: .put)
        },
        Row(name: "303 POST becomes a GET without body or Content-Type", expected: rewritten) { engine, base, _ in
            try await send(engine, "/redirect/303/same", base, method: .post)
        },
        Row(name: "302 POST becomes a GET without body or Content-Type", expected: rewritten) { engine, base, _ in
            try await send(engine, "/redirect/302/same", base, method: .post)
        },
        Row(name: "301 POST becomes a GET without body or Content-Type", expected: rewritten) { engine, base, _ in
            try await send(engine, "/redirect/301/same", base, method: .post)
        },
        Row(name: "307 POST to another origin is refused", expected: "RedirectError.bodyToAnotherOrigin") {
            engine, base, _ in
            try await send(engine, "/redirect/307/other", base, method: .post)
        },
        Row(
            name: "308 with a body that cannot be read twice is refused",
            expected: "RedirectError.bodyNotReplayable"
        ) { engine, base, _ in
            try await send(engine, "/redirect/308/same", base, method: .post, oneShot: true)
        },
        Row(name: "a redirect loop", expected: "TransportError.tooManyRedirects") { engine, base, _ in
            try await get(engine, "/loop/a", base)
        },
        Row(name: "10 redirects are followed", expected: "end") { engine, base, _ in
            try await get(engine, "/chain/10", base)
        },
        Row(name: "11 redirects are too many", expected: "TransportError.tooManyRedirects") { engine, base, _ in
            try await get(engine, "/chain/11", base)
        },
        Row(name: "a Location with a file: URL", expected: #"RedirectError.unsupportedScheme("file")"#) {
            engine, base, _ in
            try await get(engine, "/scheme/file", base)
        },
        Row(name: "a Location with a data: URL", expected: #"RedirectError.unsupportedScheme("data")"#) {
            engine, base, _ in
            try await get(engine, "/scheme/data", base)
        },
        Row(
            name: "a hop to a loopback address, with refusesPrivateAddresses",
            expected: #"RedirectError.privateAddress("127.0.0.1")"#,
            run: { engine, base, other in
                try await get(engine, "/redirect/302/other", base, requestBase: other)
            },
            configure: { $0.redirectPolicy.refusesPrivateAddresses = true }
        ),
        Row(
            name: "redirects turned off: the 302 is the answer",
            expected: "HTTPError 302",
            run: { engine, base, _ in try await get(engine, "/redirect/302/same", base) },
            configure: { $0.redirectPolicy = .never }
        ),
        Row(
            name: "the cookie jar keeps a 302's Set-Cookie and sends it on the next hop",
            expected: "GET body= auth=Bearer t1 key=k1 plugin=p1 custom=c cookie=session=s1 type=application/json",
            run: { engine, base, _ in try await get(engine, "/login", base) },
            configure: { $0.cookieJar = CookieJar() }
        ),
        Row(
            name: "plugins see each hop",
            expected: "initial GET /redirect/302/same, redirected(status: 302) GET /echo",
            run: { engine, base, _ in
                let recorder = HopRecorder()
                var engine = engine
                engine.plugins.append(recorder)
                _ = try await get(engine, "/redirect/302/same", base)
                return recorder.hops.withLock { $0.joined(separator: ", ") }
            }
        ),
        Row(
            name: "a response reached through a 302 is cached under its own URL only",
            expected: "cached 2 b 1",
            run: { engine, base, _ in
                _ = try await get(engine, "/cached/a", base)
                let again = try await get(engine, "/cached/a", base)
                let direct = try await get(engine, "/cached/b", base)
                guard again == direct else { return "\(again) / \(direct)" }
                return "cached \(hits.count("/cached/a", base)) b \(hits.count("/cached/b", base))"
            },
            configure: { $0.responseCache = ResponseCache(maximumBytes: 1 << 20) }
        ),
    ]

    private static func post(_ method: String) -> String {
        "\(method) body=abc auth=Bearer t1 key=k1 plugin=p1 custom=c cookie=- type=text/plain"
    }

    /// The row's request: a path on `requestBase` (the base URL unless another is given), with a header of its own.
    private struct Call: Endpoint {
        typealias Response = Data
        var path: String
        var method: HTTPMethod = .get
        var headers: [String: String]? { ["X-Custom": "c"] }
        var baseURL: URL?
        var body: RequestBody?
    }

    private static func get(_ engine: RequestExecutor, _ path: String, _ base: URL, requestBase: URL? = nil)
        async throws -> String
    {
        try await send(engine, path, base, requestBase: requestBase)
    }

    private static func send(
        _ engine: RequestExecutor, _ path: String, _ base: URL, requestBase: URL? = nil, method: HTTPMethod = .get,
        oneShot: Bool = false, fromFile: Bool = false
    ) async throws -> String {
        var call = Call(path: path, method: method, baseURL: requestBase)
        let payload = Data("abc".utf8)
        let file = fromFile ? try ScratchFile(payload) : nil
        if let file {
            call.body = try RequestBody(fileURL: file.url, contentType: "text/plain")
        } else if method != .get {
            call.body =
                oneShot
                ? RequestBody(stream: InputStream(data: payload), length: 3, contentType: "text/plain")
                : RequestBody(data: payload, contentType: "text/plain")
        }
        defer { withExtendedLifetime(file) {} }
        let data = try await engine.send(call, baseURL: base, accessToken: { "t1" })
        return String(decoding: data, as: UTF8.self)
    }

    /// Sets a credential header of its own on every attempt, as an API-key plugin does.
    private struct PluginKey: Plugin {
        var credentialFields: CredentialFields { .header("X-Plugin-Key") }
        func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
            try request.setHeader("X-Plugin-Key", "p1")
        }
    }

    /// Notes each attempt's reason, method and path.
    private final class HopRecorder: Plugin, Sendable {
        let hops = Lock<[String]>([])
        func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
            let line = "\(context.reason) \(request.method.rawValue) \(request.head.pathWithoutQuery)"
            hops.withLock { $0.append(line) }
        }
    }

    /// How often each path of each server was asked for (the cache row reads it).
    private static let hits = HitCounter()

    private final class HitCounter: Sendable {
        private let counts = Lock<[String: Int]>([:])
        func add(_ path: String, port: String) { counts.withLock { $0["\(port)\(path)", default: 0] += 1 } }
        func count(_ path: String, _ base: URL) -> Int {
            counts.withLock { $0["\(base.port.map(String.init) ?? "")\(path)", default: 0] }
        }
    }

    /// The server every row talks to.
    @Sendable private static func answer(_ request: LoopbackRequest) -> LoopbackResponse {
        let host = request.header("Host") ?? ""
        let port = host.split(separator: ":").last.map(String.init) ?? ""
        let here = host.hasPrefix("localhost") ? "localhost" : "127.0.0.1"
        let elsewhere = here == "localhost" ? "127.0.0.1" : "localhost"
        func redirect(_ status: Int, to location: String, _ extra: [(name: String, value: String)] = [])
            -> LoopbackResponse
        {
            LoopbackResponse(
                status: status, headers: [(name: "Location", value: location)] + extra, body: Data("moved".utf8))
        }
        let parts = request.path.split(separator: "/").map(String.init)
        hits.add(request.path, port: port)
        switch parts.first {
        case "echo":
            let fields = ["Authorization", "X-Api-Key", "X-Plugin-Key", "X-Custom", "Cookie", "Content-Type"].map {
                request.header($0) ?? "-"
            }
            return .text(
                "\(request.method) body=\(request.bodyText) auth=\(fields[0]) key=\(fields[1]) plugin=\(fields[2]) "
                    + "custom=\(fields[3]) cookie=\(fields[4]) type=\(fields[5])")
        case "redirect" where parts.count == 3:
            let status = Int(parts[1]) ?? 302
            return redirect(status, to: parts[2] == "same" ? "/echo" : "http://\(elsewhere):\(port)/echo")
        case "loop":
            return redirect(302, to: parts.last == "a" ? "/loop/b" : "/loop/a")
        case "chain":
            let left = Int(parts.last ?? "") ?? 0
            return left == 0 ? .text("end") : redirect(302, to: "/chain/\(left - 1)")
        case "scheme":
            return redirect(302, to: parts.last == "file" ? "file:///etc/passwd" : "data:text/plain,hi")
        case "login":
            return redirect(302, to: "/echo", [(name: "Set-Cookie", value: "session=s1; Path=/")])
        case "cached":
            if parts.last == "a" { return redirect(302, to: "/cached/b") }
            return LoopbackResponse(
                status: 200, headers: [(name: "Cache-Control", value: "max-age=600")], body: Data("b".utf8))
        default:
            return .text("not found", status: 404)
        }
    }
}

import Foundation
import LoopbackServer
import NetCore
import NetKitLock

extension TransportConformance {
    /// The engine's response cache over the transport, one rule of RFC 9111 (and RFC 5861) per path of a loopback
    /// server: what the transport delivers (statuses, `Last-Modified`, `Expires`, a dropped connection, a method
    /// outside ``HTTPMethod``) must let the cache decide as it does over any other transport.
    static let caching = TransportConformanceCheck("caching") { context in
        let served = Lock([String: Int]())
        let server = try context.server { request in
            let count = served.withLock { counts -> Int in
                counts[request.method + " " + request.path, default: 0] += 1
                return counts[request.method + " " + request.path, default: 0]
            }
            switch (request.method, request.path) {
            case ("GET", "/heuristic-404"):
                return LoopbackResponse(
                    status: 404, headers: [(name: "Last-Modified", value: "Mon, 01 Jan 2001 00:00:00 GMT")],
                    body: Data("gone".utf8))
            case ("GET", "/expires-utc"):
                return LoopbackResponse(
                    headers: [(name: "Expires", value: "Thu, 18 Aug 2050 02:01:18 UTC")], body: Data("a".utf8))
            case ("GET", "/stale-if-error"):
                return count == 1
                    ? LoopbackResponse(
                        headers: [(name: "Cache-Control", value: "max-age=0, stale-if-error=600")],
                        body: Data("stored".utf8))
                    : LoopbackResponse(faults: [.closeWithoutResponse])
            case ("GET", "/dav"):
                return LoopbackResponse(
                    headers: [(name: "Cache-Control", value: "max-age=600")], body: Data("folder \(count)".utf8))
            default:
                return LoopbackResponse(status: 207, body: Data("multi-status".utf8))
            }
        }
        defer { server.stop() }
        var executor = RequestExecutor(transport: context.transport)
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        func count(_ target: String) -> Int { served.withLock { $0[target, default: 0] } }
        func get(_ path: String) async throws -> String {
            String(decoding: try await executor.send(CachedGet(path: path), baseURL: server.baseURL), as: UTF8.self)
        }

        for _ in 0..<2 {
            do {
                _ = try await get("/heuristic-404")
            } catch let error as HTTPError where error.statusCode == 404 {}
        }
        try context.expect(
            count("GET /heuristic-404") == 1,
            "RFC 9111 §4.2.2: a 404 with only Last-Modified was asked \(count("GET /heuristic-404")) times, "
                + "expected once (heuristic freshness)")

        for _ in 0..<2 { _ = try await get("/expires-utc") }
        try context.expect(
            count("GET /expires-utc") == 2,
            "RFC 9111 §5.3: an Expires in UTC is no HTTP-date and means expired, yet the response answered again")

        let first = try await get("/stale-if-error")
        let second = try await get("/stale-if-error")
        // The server must have been asked again (a transport may itself resend once on a dropped kept-alive
        // connection, as URLSession does).
        try context.expect(
            first == "stored" && second == "stored" && count("GET /stale-if-error") >= 2,
            "RFC 5861 §4: with the connection dropped, stale-if-error should answer \"stored\" after asking the "
                + "server again; got \(second), the server was asked \(count("GET /stale-if-error")) times")

        let folder = try await get("/dav")
        _ = try await executor.send(Propfind(), baseURL: server.baseURL)
        let again = try await get("/dav")
        try context.expect(
            folder == "folder 1" && again == "folder 2" && count("PROPFIND /dav") == 1,
            "RFC 9111 §4.4: a successful PROPFIND should invalidate the stored GET of /dav; got \(again), the server "
                + "saw \(count("PROPFIND /dav")) PROPFIND")
    }

    private struct CachedGet: Endpoint {
        typealias Response = Data
        let path: String
        var method: HTTPMethod { .get }
        // A retry would hide what the cache did with a failure.
        var allowsRetry: Bool { false }
    }

    private struct Propfind: Endpoint {
        typealias Response = Data
        var path: String { "/dav" }
        var method: HTTPMethod { .get }
        var requestMethod: HTTPRequestMethod { HTTPRequestMethod(rawValue: "PROPFIND")! }
    }
}

import Foundation
import NetKit

struct GetArticle: NetworkRequest {
    struct Article: Decodable, Sendable {
        let id: Int
        let title: String
    }
    typealias Response = Article
    var path: String { "/articles/1" }
    var method: HTTPMethod { .get }
}

extension Demo {
    /// With a ResponseCache, a stored response with an ETag is revalidated: a 304 returns the stored body.
    func cachedGet() async throws {
        Output.section("A cached GET revalidated with 304")
        let manager = Demo.manager(for: server)
        manager.responseCache = ResponseCache(maximumBytes: 1 << 20)
        let first = try await manager.send(GetArticle())
        Output.line("GET /articles/1 → 200 \"\(first.title)\", stored with ETag \(DemoRoutes.articleETag)")
        let second = try await manager.send(GetArticle())
        let exchanges = server.sinceLastLook()
        let status = exchanges.last?.split(separator: " ").last ?? "?"
        Output.line("GET /articles/1 again, with If-None-Match: \(DemoRoutes.articleETag)")
        Output.line("\(status) → stored body \"\(second.title)\" (the 304 carried no body)")
        Output.line("server: \(exchanges.summary)")
    }
}

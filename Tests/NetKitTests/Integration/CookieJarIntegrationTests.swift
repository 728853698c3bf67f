import Foundation
import LoopbackServer
import Testing
import NetKit
import NetKitTesting

/// The cookie jar over real TCP on 127.0.0.1, through URLSession.
@Suite("Cookie jar over loopback TCP")
struct CookieJarIntegrationTests {
    struct Page: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String
        var method: HTTPMethod { .get }
    }

    /// Sets cookies on `/login` and `/fail` (a 500), and answers everything else with 204; records every request.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/login":
                LoopbackResponse(
                    status: 204,
                    headers: [
                        (name: "Set-Cookie", value: "session=abc; Path=/; HttpOnly"),
                        (name: "Set-Cookie", value: "admin=1; Path=/admin"),
                    ])
            case "/fail":
                LoopbackResponse(status: 500, headers: [(name: "Set-Cookie", value: "failed=yes; Path=/")])
            case "/feed":
                LoopbackResponse(
                    status: 200, headers: [(name: "Set-Cookie", value: "streamed=1")], body: Data("line\n".utf8))
            default:
                LoopbackResponse(status: 204)
            }
        }
    }

    /// The `Cookie` header of the server's requests to `path`, in order (`-` for none).
    static func cookies(_ server: LoopbackServer, _ path: String) -> [String] {
        server.requests.filter { $0.path == path }.map {
            $0.headerValues("Cookie").joined(separator: " | ").isEmpty
                ? "-" : $0.headerValues("Cookie").joined(separator: " | ")
        }
    }

    /// A transport whose session keeps cookies of its own (ephemeral: its own store, not the process's shared one).
    static func transport() -> URLSessionTransport {
        URLSessionTransport(configuration: .ephemeral)
    }

    @Test("a cookie set by one response is sent on the next request, and not to another host")
    func setThenSent() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let jar = CookieJar()
        let transport = Self.transport()
        let manager = NetworkManager(baseURL: server.baseURL, transport: transport)
        manager.cookieJar = jar
        let other = NetworkManager(baseURL: URL(string: "http://localhost:\(server.port)")!, transport: transport)
        other.cookieJar = jar

        _ = try await manager.send(Page(path: "/login"), accessToken: nil)
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        _ = try await manager.send(Page(path: "/admin/users"), accessToken: nil)
        _ = try await other.send(Page(path: "/me"), accessToken: nil)

        #expect(Self.cookies(server, "/login") == ["-"])
        #expect(Self.cookies(server, "/admin/users") == ["admin=1; session=abc"], "longer path first")
        #expect(Self.cookies(server, "/me") == ["session=abc", "-"], "127.0.0.1's cookie never goes to localhost")
        #expect(jar.cookies(for: server.baseURL.appendingPathComponent("me")).map(\.name) == ["session"])
        #expect(jar.allCookies.first?.isHTTPOnly == true)
    }

    @Test("the jar's Cookie header is the one sent: the session's own cookie store neither replaces nor adds to it")
    func jarHeaderSurvives() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let stored = try #require(
            HTTPCookie(properties: [.name: "session", .value: "from-session-store", .domain: "127.0.0.1", .path: "/"]))
        try #require(configuration.httpCookieStorage).setCookie(stored)
        let transport = URLSessionTransport(configuration: configuration)
        let jar = CookieJar()
        let manager = NetworkManager(baseURL: server.baseURL, transport: transport)
        manager.cookieJar = jar
        try jar.setCookie(Cookie(name: "session", value: "from-jar", domain: "127.0.0.1"))
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        jar.removeAll()
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        // Without a jar, the session's store works as URLSession's always has.
        _ = try await NetworkManager(baseURL: server.baseURL, transport: transport).send(
            Page(path: "/me"), accessToken: nil)
        #expect(Self.cookies(server, "/me") == ["session=from-jar", "-", "session=from-session-store"])
    }

    @Test("without a jar, the session's cookie store keeps what responses set and sends it back")
    func sessionStoreKeepsResponseCookies() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try #require(configuration.httpCookieStorage)
        let manager = NetworkManager(
            baseURL: server.baseURL, transport: URLSessionTransport(configuration: configuration))
        _ = try await manager.send(Page(path: "/login"), accessToken: nil)
        let kept = storage.cookies(for: server.baseURL.appendingPathComponent("admin/users")) ?? []
        #expect(kept.map(\.name).sorted() == ["admin", "session"])
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        // `admin` is scoped to /admin: FoundationNetworking's storage alone would send it everywhere on Linux.
        #expect(Self.cookies(server, "/me") == ["session=abc"])
        _ = try await manager.send(Page(path: "/admin/users"), accessToken: nil)
        #expect(Self.cookies(server, "/admin/users") == ["admin=1; session=abc"])
    }

    @Test("the session's store sends a Secure cookie over https only, never in clear text")
    func sessionStoreKeepsSecureCookiesOffHTTP() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try #require(configuration.httpCookieStorage)
        storage.setCookie(
            try #require(
                HTTPCookie(properties: [
                    .name: "session", .value: "secret", .domain: "127.0.0.1", .path: "/", .secure: "TRUE",
                ])))
        let manager = NetworkManager(
            baseURL: server.baseURL, transport: URLSessionTransport(configuration: configuration))
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        #expect(Self.cookies(server, "/me") == ["-"])
    }

    @Test("a session that accepts no cookies keeps none")
    func sessionStoreAcceptingNone() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        let storage = try #require(configuration.httpCookieStorage)
        let manager = NetworkManager(
            baseURL: server.baseURL, transport: URLSessionTransport(configuration: configuration))
        _ = try await manager.send(Page(path: "/login"), accessToken: nil)
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        #expect(storage.cookies?.isEmpty ?? true)
        #expect(Self.cookies(server, "/me") == ["-"])
    }

    @Test("cookies of a failed response and of a stream are kept, and stream sends the jar's cookies")
    func failuresAndStreams() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL, transport: Self.transport())
        manager.cookieJar = CookieJar()
        await #expect(throws: HTTPError.self) { try await manager.send(Page(path: "/fail"), accessToken: nil) }
        let stream = try await manager.stream(Page(path: "/feed"), accessToken: nil)
        for try await _ in stream.chunks {}
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        #expect(Self.cookies(server, "/feed") == ["failed=yes"])
        #expect(Self.cookies(server, "/me") == ["failed=yes; streamed=1"])
    }

    @Test("after a redirect, the final response's cookies are filed under the URL that answered")
    func redirected() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/go":
                LoopbackResponse(
                    status: 302,
                    headers: [
                        (name: "Location", value: "http://localhost:\(request.header("X-Port") ?? "")/landing/page")
                    ])
            case "/landing/page":
                LoopbackResponse(status: 204, headers: [(name: "Set-Cookie", value: "landed=1")])
            default:
                LoopbackResponse(status: 204)
            }
        }
        defer { server.stop() }
        struct Go: NetworkRequest {
            typealias Response = EmptyResponse
            let port: Int
            var path: String { "/go" }
            var method: HTTPMethod { .get }
            var headers: [String: String]? { ["X-Port": "\(port)"] }
        }
        let jar = CookieJar()
        let manager = NetworkManager(baseURL: server.baseURL, transport: Self.transport())
        manager.cookieJar = jar
        _ = try await manager.send(Go(port: server.port), accessToken: nil)
        let cookie = try #require(jar.allCookies.first)
        #expect(jar.allCookies.count == 1)
        #expect(cookie.domain == "localhost" && cookie.isHostOnly && cookie.path == "/landing")
        #expect(jar.cookies(for: server.baseURL.appendingPathComponent("landing/page")).isEmpty)
    }

    @Test("without a jar, nothing is added by NetKit")
    func noJar() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let manager = NetworkManager(
            baseURL: server.baseURL, transport: URLSessionTransport(configuration: configuration))
        _ = try await manager.send(Page(path: "/login"), accessToken: nil)
        _ = try await manager.send(Page(path: "/me"), accessToken: nil)
        #expect(Self.cookies(server, "/me") == ["-"])
    }
}

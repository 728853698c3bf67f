import Foundation
import LoopbackServer
import NetKitLock
import Testing
import NetKit

/// EKNetwork-style requests against a real HTTP server on 127.0.0.1, through URLSession.
@Suite("Integration over loopback TCP")
struct LoopbackIntegrationTests {
    @Test("JSON GET with query parameters, token and user agent")
    func jsonGet() async throws {
        struct Search: NetworkRequest {
            typealias Response = [User]
            var path: String { "/users" }
            var method: HTTPMethod { .get }
            var queryParameters: [String: String]? { ["q": "a+b c&d", "limit": "2"] }
        }
        let server = try LoopbackServer { request in
            guard request.path == "/api/users" else { return .text("no", status: 404) }
            return .json(#"[{"id":1,"name":"ann"},{"id":2,"name":"bob"}]"#)
        }
        defer { server.stop() }
        let base = URL(string: "\(server.baseURL.absoluteString)/api?key=k1")!
        let manager = NetworkManager(
            baseURL: base, userAgentConfiguration: UserAgentConfiguration(appName: "IT", appVersion: "1"))
        let users = try await manager.send(Search(), accessToken: { "tok" })
        #expect(users.map(\.name) == ["ann", "bob"])
        let request = try #require(server.requests.first)
        #expect(request.rawQuery == "key=k1&limit=2&q=a%2Bb%20c%26d")
        #expect(request.queryItems.first { $0.name == "q" }?.value == "a+b c&d")
        #expect(request.header("Authorization") == "Bearer tok")
        #if os(Linux)
        #expect(request.header("User-Agent")?.contains("; Linux ") == true)
        #endif
    }

    @Test("JSON POST sends the encoded body; the server's answer decodes")
    func jsonPost() async throws {
        let server = try LoopbackServer { request in
            guard request.method == "POST", request.header("Content-Type") == "application/json",
                let body = try? JSONDecoder().decode([String: String].self, from: request.body)
            else { return .text("bad", status: 400) }
            return .json(#"{"id":9,"name":"\#(body["name"] ?? "")"}"#, status: 201)
        }
        defer { server.stop() }
        let user = try await NetworkManager(baseURL: server.baseURL).send(CreateUser(name: "zoe"), accessToken: nil)
        #expect(user == User(id: 9, name: "zoe"))
    }

    @Test("a form body arrives as fields")
    func formBody() async throws {
        struct Login: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/login" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { RequestBody(formURLEncoded: ["user": "a&b", "password": "p=1 + 2"]) }
        }
        let server = try LoopbackServer { _ in LoopbackResponse(status: 204) }
        defer { server.stop() }
        _ = try await NetworkManager(baseURL: server.baseURL).send(Login(), accessToken: nil)
        let request = try #require(server.requests.first)
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.formFields().map { "\($0.name)=\($0.value)" } == ["password=p=1 + 2", "user=a&b"])
    }

    @Test("a multipart form is parsed by the server part by part")
    func multipart() async throws {
        struct Upload: NetworkRequest {
            typealias Response = EmptyResponse
            var path: String { "/upload" }
            var method: HTTPMethod { .post }
            var multipartData: MultipartFormData? {
                var form = MultipartFormData()
                form.addPart(name: "title", data: Data("Holiday \"2026\"".utf8), mimeType: "text/plain")
                form.addPart(
                    name: "photo", data: Data([0xFF, 0xD8, 0x0D, 0x0A, 0x2D, 0x2D, 0x00]), mimeType: "image/jpeg",
                    filename: "beach \"1\".jpg")
                return form
            }
        }
        let server = try LoopbackServer { _ in LoopbackResponse(status: 201) }
        defer { server.stop() }
        _ = try await NetworkManager(baseURL: server.baseURL).send(Upload(), accessToken: nil)
        let parts = try #require(try server.requests.first?.multipartParts())
        #expect(parts.map(\.name) == ["title", "photo"])
        #expect(parts[0].data == Data("Holiday \"2026\"".utf8))
        #expect(parts[1].filename == "beach \"1\".jpg")
        #expect(parts[1].contentType == "image/jpeg")
        #expect(parts[1].data == Data([0xFF, 0xD8, 0x0D, 0x0A, 0x2D, 0x2D, 0x00]))
    }

    @Test("204 with EmptyResponse and StatusCodeResponse")
    func noContent() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 204, headers: [("X-Version", "3")]) }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        #expect(try await manager.send(DeleteUser(), accessToken: nil) == EmptyResponse())
        let status = try await manager.send(UpdateUser(), accessToken: nil)
        #expect(status.statusCode == 204)
        #expect(status.value(forHeader: "X-Version") == "3")
    }

    @Test("404 with a body is an HTTPError carrying it")
    func notFound() async throws {
        let server = try LoopbackServer { _ in .json(#"{"error":"no such user"}"#, status: 404) }
        defer { server.stop() }
        let error = await #expect(throws: HTTPError.self) {
            try await NetworkManager(baseURL: server.baseURL).send(GetUser(), accessToken: nil)
        }
        #expect(error?.statusCode == 404)
        #expect(error?.data == Data(#"{"error":"no such user"}"#.utf8))
    }

    @Test("401 → refresh → 200 against a server that issues tokens")
    func refreshFlow() async throws {
        struct RefreshRequest: NetworkRequest {
            struct Tokens: Decodable { let accessToken: String }
            typealias Response = Tokens
            var path: String { "/auth/refresh" }
            var method: HTTPMethod { .post }
            var allowsRetry: Bool { false }
        }
        final class ServerRefresher: TokenRefreshProvider, Sendable {
            let manager: NetworkManager
            let token = Lock("expired")
            init(manager: NetworkManager) { self.manager = manager }
            func refreshTokenIfNeeded() async throws {
                let tokens = try await manager.send(RefreshRequest(), accessToken: nil)
                token.withLock { $0 = tokens.accessToken }
            }
        }
        let issued = Lock(0)
        let server = try LoopbackServer { request in
            if request.path == "/auth/refresh" {
                let number = issued.withLock {
                    $0 += 1
                    return $0
                }
                return .json(#"{"accessToken":"fresh-\#(number)"}"#)
            }
            let valid = "Bearer fresh-\(issued.withLock { $0 })"
            return request.header("Authorization") == valid
                ? .json(#"{"id":1,"name":"ann"}"#) : .json("{}", status: 401)
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let refresher = ServerRefresher(manager: manager)
        manager.tokenRefresher = refresher
        let user = try await manager.send(GetUser(), accessToken: { refresher.token.withLock { $0 } })
        #expect(user.name == "ann")
        #expect(server.requests.map(\.path) == ["/users/1", "/auth/refresh", "/users/1"])
        #expect(issued.withLock { $0 } == 1)
    }

    @Test("503 twice then 200 succeeds with retries")
    func retries() async throws {
        let count = Lock(0)
        let server = try LoopbackServer { _ in
            count.withLock {
                $0 += 1
                return $0
            } <= 2 ? .text("busy", status: 503) : .json(#"{"id":1,"name":"ann"}"#)
        }
        defer { server.stop() }
        let user = try await NetworkManager(baseURL: server.baseURL).send(GetUser(retries: 2), accessToken: nil)
        #expect(user.id == 1)
        #expect(server.requestCount == 3)
    }

    @Test("cancelling a slow request ends it and closes the connection")
    func cancellation() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse.json("{}").with(.delayBeforeHead(.seconds(60))) }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        let task = Task { try await manager.send(GetUser(), accessToken: nil) }
        try await server.waitForRequests(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await server.wait(for: .clientAbortedResponses, atLeast: 1)
    }

    @Test("upload progress rises through the transfer and ends at exactly 1.0")
    func uploadProgress() async throws {
        struct Upload: NetworkRequest {
            typealias Response = EmptyResponse
            let progress: NetworkProgress?
            var path: String { "/upload" }
            var method: HTTPMethod { .put }
            var body: RequestBody? {
                RequestBody(data: Data(repeating: 7, count: 8 << 20), contentType: "application/octet-stream")
            }
        }
        let server = try LoopbackServer { request in LoopbackResponse(status: request.body.count == 8 << 20 ? 204 : 400)
        }
        defer { server.stop() }
        let progress = NetworkProgress()
        let updates = progress.updates
        let collector = Task { await updates.reduce(into: [Double]()) { $0.append($1) } }
        _ = try await NetworkManager(baseURL: server.baseURL).send(Upload(progress: progress), accessToken: nil)
        let values = await collector.value
        #expect(values.last == 1.0)
        #expect(values.count >= 3, "intermediate values: \(values)")
        #expect(values == values.sorted())
    }

    @Test("a stream body is sent whole (chunked) and not retried")
    func streamUpload() async throws {
        struct Upload: NetworkRequest {
            typealias Response = EmptyResponse
            let payload: Data
            var path: String { "/upload" }
            var method: HTTPMethod { .post }
            var body: RequestBody? {
                RequestBody(stream: InputStream(data: payload), contentType: "application/octet-stream")
            }
        }
        let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try LoopbackServer { request in LoopbackResponse(status: request.body == payload ? 201 : 400) }
        defer { server.stop() }
        _ = try await NetworkManager(baseURL: server.baseURL).send(Upload(payload: payload), accessToken: nil)
        #expect(server.requests.first?.wasChunked == true)
    }
}

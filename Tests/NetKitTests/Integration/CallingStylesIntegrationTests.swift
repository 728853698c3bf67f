import Foundation
import LoopbackServer
import Testing
import NetKit

/// A search whose query repeats a name, as a request type declares it.
private struct TaggedSearch: NetworkRequest {
    typealias Response = [User]
    var path: String { "/users" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["limit": "2"] }
    var queryItems: [URLQueryItem]? {
        [URLQueryItem(name: "tag", value: "b&c"), URLQueryItem(name: "tag", value: "a")]
    }
}

/// A configuration, the completion handler and the fluent builder against a real HTTP server on 127.0.0.1, through
/// URLSession.
@Suite("Calling styles over loopback TCP")
struct CallingStylesIntegrationTests {
    @Test("a configured manager's completion handler: default headers, query items, decoded value")
    func completionHandler() async throws {
        let server = try LoopbackServer { request in
            guard request.path == "/api/users" else { return .text("no", status: 404) }
            return .json(#"[{"id":1,"name":"ann"}]"#)
        }
        defer { server.stop() }
        var configuration = NetworkConfiguration(baseURL: URL(string: "\(server.baseURL.absoluteString)/api")!)
        configuration.defaultHeaders = ["X-Client": "it"]
        let manager = NetworkManager(configuration: configuration)
        let (results, deliver) = AsyncStream.makeStream(of: Result<[User], any Error>.self)
        let task = manager.send(TaggedSearch(), accessToken: { "tok" }) { deliver.yield($0) }
        var iterator = results.makeAsyncIterator()
        let users = try #require(await iterator.next()).get()
        #expect(users == [User(id: 1, name: "ann")])
        #expect(!task.isCancelled)
        let request = try #require(server.requests.first)
        #expect(request.rawQuery == "limit=2&tag=b%26c&tag=a")
        #expect(request.header("X-Client") == "it")
        #expect(request.header("Authorization") == "Bearer tok")
    }

    @Test("cancel() over URLSession: the completion gets CancellationError and the connection is closed")
    func cancelOverTheWire() async throws {
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let (closes, closed) = AsyncStream.makeStream(of: Bool.self)
        let server = try LoopbackServer { _ in
            .streamed { writer in
                arrived.yield()
                closed.yield(writer.waitForClientClose(timeout: .seconds(60)))
            }
        }
        defer { server.stop() }
        let manager = NetworkManager(configuration: NetworkConfiguration(baseURL: server.baseURL))
        let (results, deliver) = AsyncStream.makeStream(of: Result<User, any Error>.self)
        let task = manager.send(GetUser()) { deliver.yield($0) }
        var arrival = arrivals.makeAsyncIterator()
        await arrival.next()
        task.cancel()
        var iterator = results.makeAsyncIterator()
        let result = try #require(await iterator.next())
        #expect(throws: CancellationError.self) { try result.get() }
        var close = closes.makeAsyncIterator()
        #expect(await close.next() == true)
    }

    @Test("the fluent builder: POST with a JSON body, repeated query and headers, then string() and json()")
    func fluentBuilder() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/users":
                guard request.method == "POST", request.header("Content-Type") == "application/json",
                    let body = try? JSONDecoder().decode([String: String].self, from: request.body)
                else { return .text("bad", status: 400) }
                return .json(#"{"id":5,"name":"\#(body["name"] ?? "")"}"#, status: 201)
            case "/motd":
                return .text("héllo")
            default:
                return .json(#"{"ok":true,"n":[1,2]}"#)
            }
        }
        defer { server.stop() }
        let manager = NetworkManager(configuration: NetworkConfiguration(baseURL: server.baseURL))
        let user = try await manager.request("/users").method(.post).query("via", "a").query("via", "b c")
            .header("X-Trace", "1").body(["name": "eve"]).decode(User.self)
        #expect(user == User(id: 5, name: "eve"))
        #expect(try await manager.request("/motd").string() == "héllo")
        #expect(
            try await manager.request("/status").json()
                == .object(["ok": .bool(true), "n": .array([.number(1), .number(2)])]))
        let post = try #require(server.requests.first)
        #expect(post.rawQuery == "via=a&via=b%20c")
        #expect(post.header("X-Trace") == "1")
    }
}

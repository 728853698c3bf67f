import Foundation
import LoopbackServer
import Testing
import NetKit

/// Response kinds and server error models over real TCP on 127.0.0.1, through the URLSession transport.
@Suite("Response kinds over loopback TCP")
struct ResponseKindIntegrationTests {
    struct Get<Value: Decodable>: NetworkRequest {
        typealias Response = Value
        var path: String
        var responseKeyPath: [String]?
        var method: HTTPMethod { .get }
    }

    struct APIError: Decodable, Error, Equatable {
        let code: String
    }

    static let bytes = Data((0..<256).map { UInt8($0) })

    func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/bytes":
                LoopbackResponse(headers: [(name: "Content-Type", value: "application/octet-stream")], body: Self.bytes)
            case "/latin1":
                LoopbackResponse(
                    headers: [(name: "Content-Type", value: "text/plain; charset=ISO-8859-1")],
                    body: Data([0x63, 0x61, 0x66, 0xE9]))
            case "/utf8": .text("grüße ✓")
            case "/json": .json(#"{"data":{"users":[{"id":1,"name":"ann"}],"flags":[true,null,2.5]}}"#)
            case "/empty": LoopbackResponse(status: 200)
            case "/fail": .json(#"{"code":"E1"}"#, status: 400)
            default: .text("no", status: 404)
            }
        }
    }

    @Test("Data, String and JSONValue responses over URLSession")
    func kinds() async throws {
        let server = try server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        #expect(try await manager.send(Get<Data>(path: "/bytes")) == Self.bytes)
        #expect(try await manager.send(Get<Data>(path: "/empty")) == Data())
        #expect(try await manager.send(Get<String>(path: "/latin1")) == "café")
        #expect(try await manager.send(Get<String>(path: "/utf8")) == "grüße ✓")
        #expect(try await manager.send(Get<String>(path: "/empty")) == "")
        let json = try await manager.send(Get<JSONValue>(path: "/json"))
        #expect(json["data"]?["flags"] == [true, nil, 2.5])
    }

    @Test("a key path and a server error model over URLSession")
    func keyPathAndErrorModel() async throws {
        let server = try server()
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL)
        #expect(
            try await manager.send(Get<[User]>(path: "/json", responseKeyPath: ["data", "users"])) == [
                User(id: 1, name: "ann")
            ])
        #expect(try await manager.send(Get<JSONValue>(path: "/json", responseKeyPath: ["data", "flags"]))[2] == 2.5)
        await #expect(throws: ResponseDecodingError.missingKey(key: "posts", path: ["data", "posts"])) {
            try await manager.send(Get<[User]>(path: "/json", responseKeyPath: ["data", "posts"]))
        }
        manager.errorModel = APIError.self
        let error = try #require(
            await #expect(throws: ServerError.self) { try await manager.send(Get<JSONValue>(path: "/fail")) })
        #expect(error.statusCode == 400)
        #expect(error.model(as: APIError.self) == APIError(code: "E1"))
        await #expect(throws: HTTPError.self) { try await manager.send(Get<JSONValue>(path: "/missing")) }
    }
}

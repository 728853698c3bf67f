import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import NetKit
import NetKitTesting

/// Response kinds through EKNetwork's facade: `NetworkRequest`s whose `Response` is `Data`, `String`, `JSONValue`,
/// or JSON at a key path need no `decodeResponse` of their own, and take the fast path that builds no
/// `HTTPURLResponse`.
@Suite("Response kinds through NetworkManager")
struct ResponseKindFacadeTests {
    struct Bytes: NetworkRequest {
        typealias Response = Data
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    struct Text: NetworkRequest {
        typealias Response = String
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    struct Untyped: NetworkRequest {
        typealias Response = JSONValue
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    struct Users: NetworkRequest {
        typealias Response = [User]
        var path: String { "/users" }
        var method: HTTPMethod { .get }
        var responseKeyPath: [String]? { ["data", "users"] }
    }

    struct SnakeUsers: NetworkRequest {
        struct Person: Decodable, Equatable { let firstName: String }
        typealias Response = [Person]
        var path: String { "/users" }
        var method: HTTPMethod { .get }
        var responseKeyPath: [String]? { ["data", "user_list"] }
    }

    struct BytesWithHandler: NetworkRequest {
        typealias Response = Data
        var path: String { "/file" }
        var method: HTTPMethod { .get }
        var emptyResponseHandler: ((HTTPURLResponse) throws -> Data)? { { _ in Data("empty".utf8) } }
    }

    struct OwnText: NetworkRequest {
        typealias Response = String
        var path: String { "/file" }
        var method: HTTPMethod { .get }
        func decodeResponse(data: Data, response: URLResponse) throws -> String {
            "own: \((response as? HTTPURLResponse)?.statusCode ?? 0)"
        }
    }

    @Test("Data gets the bytes, on every response, through the fast path")
    func data() async throws {
        let bytes = Data([0x00, 0xFF, 0x10])
        let manager = NetworkManager(
            baseURL: stubBase,
            transport: StubTransport { _, _ in .data(bytes, headers: ["Content-Type": "application/json"]) })
        for _ in 0..<2 { #expect(try await manager.send(Bytes()) == bytes) }
        #expect(DefaultDecoding.implementations(of: Bytes.self).plain == .json)
    }

    @Test("String decodes in the Content-Type's charset, UTF-8 otherwise")
    func string() async throws {
        let stub = StubTransport(replies: [
            .data(Data([0x63, 0x61, 0x66, 0xE9]), headers: ["Content-Type": "text/plain; charset=iso-8859-1"]),
            .data(Data("café".utf8), headers: ["Content-Type": "text/plain"]),
            .data(Data("café".utf8)),
        ])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        for _ in 0..<3 { #expect(try await manager.send(Text()) == "café") }
        #expect(DefaultDecoding.implementations(of: Text.self).plain == .json)
    }

    @Test("a String body that is not text in its charset fails with a typed error")
    func undecodableString() async throws {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport(replies: [.data(Data([0xC3, 0x28]))]))
        await #expect(throws: ResponseDecodingError.undecodableText(charset: "utf-8")) {
            try await manager.send(Text())
        }
    }

    @Test("empty bodies: Data() and \"\" rather than emptyResponse; an emptyResponseHandler still wins")
    func emptyBodies() async throws {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(200) })
        #expect(try await manager.send(Bytes()) == Data())
        #expect(try await manager.send(Text()) == "")
        #expect(try await manager.send(BytesWithHandler()) == Data("empty".utf8))
        await #expect(throws: NetworkError.emptyResponse) { try await manager.send(Untyped()) }
    }

    @Test("JSONValue decodes any JSON body")
    func untyped() async throws {
        let manager = NetworkManager(
            baseURL: stubBase, transport: StubTransport { _, _ in .json(#"{"a":[1,"b",null]}"#) })
        #expect(try await manager.send(Untyped()) == ["a": [1, "b", nil]])
        #expect(try await manager.send(Untyped())["a"]?[1] == "b")
    }

    @Test("a key path decodes the value there; a missing key names it and the path")
    func keyPath() async throws {
        let stub = StubTransport(replies: [
            .json(#"{"data":{"users":[{"id":1,"name":"ann"}]}}"#),
            .json(#"{"data":{}}"#),
        ])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        #expect(try await manager.send(Users()) == [User(id: 1, name: "ann")])
        #expect(DefaultDecoding.implementations(of: Users.self).plain == .json)
        let error = await #expect(throws: ResponseDecodingError.self) { try await manager.send(Users()) }
        #expect(error?.description == #"No value at key "users" of response key path data/users"#)
    }

    @Test("the manager's global decoder decodes at the key path too")
    func keyPathWithGlobalDecoder() async throws {
        let manager = NetworkManager(
            baseURL: stubBase,
            transport: StubTransport { _, _ in .json(#"{"data":{"user_list":[{"first_name":"ann"}]}}"#) })
        manager.responseDecoderProvider = {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        for _ in 0..<2 { #expect(try await manager.send(SnakeUsers()) == [SnakeUsers.Person(firstName: "ann")]) }
    }

    @Test("a decodeResponse of the type's own still decides, with an HTTPURLResponse")
    func ownDecoding() async throws {
        let manager = NetworkManager(
            baseURL: stubBase, transport: StubTransport { _, _ in .data(Data("x".utf8), status: 201) })
        for _ in 0..<2 { #expect(try await manager.send(OwnText()) == "own: 201") }
        #expect(DefaultDecoding.implementations(of: OwnText.self).plain == .other)
    }

    @Test("the default decodeResponse(data:response:) routes by kind when called directly")
    func directDefault() throws {
        let url = URL(string: "https://x.test")!
        let latin1 = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: nil, headerFields: ["Content-Type": "text/plain; charset=latin1"])!
        #expect(try Text().decodeResponse(data: Data([0xE9]), response: latin1) == "é")
        #expect(try Bytes().decodeResponse(data: Data([1, 2]), response: latin1) == Data([1, 2]))
        #expect(try Bytes().decodeResponse(data: Data(), response: latin1) == Data())
        #expect(
            try Users().decodeResponse(
                data: Data(#"{"data":{"users":[]}}"#.utf8), response: latin1, decoder: JSONDecoder()) == [])
    }
}

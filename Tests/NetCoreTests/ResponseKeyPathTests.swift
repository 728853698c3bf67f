import Foundation
import NetCore
import Testing

/// `responseKeyPath`: `Response` decoded from a value inside the JSON body.
@Suite("Response key paths")
struct ResponseKeyPathTests {
    struct AtPath<Value: Decodable>: Endpoint {
        typealias Response = Value
        var responseKeyPath: [String]?
        var jsonDecoder: JSONDecoder = JSONDecoder()
        var path: String { "/x" }
        var method: HTTPMethod { .get }
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ body: String, at path: [String]?, decoder: JSONDecoder? = nil)
        throws -> Value
    {
        let response = ReceivedResponse(
            head: HTTPResponseHead(statusCode: 200, reasonPhrase: "OK", headerFields: HTTPHeaderFields()),
            body: Data(body.utf8))
        return try AtPath<Value>(responseKeyPath: path).decode(response, decoder: decoder)
    }

    let envelope = #"{"status":"ok","data":{"users":[{"id":1,"name":"ann"},{"id":2,"name":"bob"}],"total":2}}"#

    @Test("the value at the path decodes as Response")
    func nested() throws {
        #expect(
            try decode([Item].self, envelope, at: ["data", "users"]) == [
                Item(id: 1, name: "ann"), Item(id: 2, name: "bob"),
            ])
        #expect(try decode(Int.self, envelope, at: ["data", "total"]) == 2)
        #expect(try decode(String.self, envelope, at: ["status"]) == "ok")
    }

    @Test("JSONValue at a path is the value there, whatever it is")
    func untyped() throws {
        #expect(try decode(JSONValue.self, envelope, at: ["data", "users"])[1]?["name"] == "bob")
        #expect(try decode(JSONValue.self, envelope, at: ["status"]) == "ok")
    }

    @Test("Data at a path follows the decoder's data strategy (base64 by default)")
    func dataAtPath() throws {
        #expect(try decode(Data.self, #"{"file":"AAH/"}"#, at: ["file"]) == Data([0x00, 0x01, 0xFF]))
    }

    @Test("a missing key names the key and the whole path")
    func missingKey() throws {
        #expect(throws: ResponseDecodingError.missingKey(key: "users", path: ["data", "users"])) {
            try decode([Item].self, #"{"data":{"people":[]}}"#, at: ["data", "users"])
        }
        #expect(throws: ResponseDecodingError.missingKey(key: "data", path: ["data", "users"])) {
            try decode([Item].self, #"{}"#, at: ["data", "users"])
        }
        let error = ResponseDecodingError.missingKey(key: "users", path: ["data", "users"])
        #expect(error.description == #"No value at key "users" of response key path data/users"#)
        #expect(error.localizedDescription == error.description)
    }

    @Test("a path through something other than an object is a typed error naming where it stopped")
    func notAnObject() throws {
        #expect(throws: ResponseDecodingError.notAnObject(key: "data", path: ["data", "users"])) {
            try decode([Item].self, #"{"data":[1,2]}"#, at: ["data", "users"])
        }
        #expect(throws: ResponseDecodingError.notAnObject(key: "data", path: ["data", "users"])) {
            try decode([Item].self, #"{"data":null}"#, at: ["data", "users"])
        }
        #expect(throws: ResponseDecodingError.notAnObject(key: nil, path: ["data"])) {
            try decode([Item].self, "[1]", at: ["data"])
        }
        #expect(
            ResponseDecodingError.notAnObject(key: "data", path: ["data", "users"]).description
                == #"The value at key "data" of response key path data/users is not a JSON object"#)
    }

    @Test("a null at the end of the path decodes as an optional's nil")
    func nullValue() throws {
        #expect(try decode(Item?.self, #"{"data":{"user":null}}"#, at: ["data", "user"]) == nil)
    }

    @Test("the value's own decoding errors come through as DecodingError")
    func valueErrors() throws {
        #expect(throws: DecodingError.self) {
            try decode([Item].self, #"{"data":{"users":[{"id":"x"}]}}"#, at: ["data", "users"])
        }
    }

    @Test("values outside the path are never decoded: no JSONValue round trip of the whole body")
    func singlePass() throws {
        // 1e400 does not fit a Double: decoding the whole body as JSONValue first would fail on it.
        let body = #"{"huge":1e400,"data":{"users":[{"id":1,"name":"ann"}]}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) }
        #expect(try decode([Item].self, body, at: ["data", "users"]) == [Item(id: 1, name: "ann")])
    }

    @Test("with a key decoding strategy the path may be written as the body spells it, or renamed")
    func keyStrategy() throws {
        struct Person: Decodable, Equatable { let firstName: String }
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let body = #"{"response_data":{"user_list":[{"first_name":"ann"}]}}"#
        #expect(
            try decode([Person].self, body, at: ["response_data", "user_list"], decoder: snake) == [
                Person(firstName: "ann")
            ])
        #expect(
            try decode([Person].self, body, at: ["responseData", "userList"], decoder: snake) == [
                Person(firstName: "ann")
            ])
        let upper = JSONDecoder()
        upper.keyDecodingStrategy = .custom { path in UpperKey(path.last!.stringValue.uppercased()) }
        #expect(try decode(Int.self, #"{"data":{"count":3}}"#, at: ["data", "count"], decoder: upper) == 3)
        #expect(throws: ResponseDecodingError.missingKey(key: "total", path: ["data", "total"])) {
            try decode(Int.self, #"{"data":{"count":3}}"#, at: ["data", "total"], decoder: snake)
        }
    }

    struct UpperKey: CodingKey {
        let stringValue: String
        init(_ value: String) { stringValue = value }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    @Test("no path or an empty one decodes the whole body; an empty body at a path is emptyResponse")
    func wholeBody() throws {
        #expect(try decode(Item.self, #"{"id":1,"name":"a"}"#, at: nil) == Item(id: 1, name: "a"))
        #expect(try decode(Item.self, #"{"id":1,"name":"a"}"#, at: []) == Item(id: 1, name: "a"))
        #expect(throws: NetworkError.emptyResponse) { try decode(String.self, "", at: ["a"]) }
    }

    @Test("key paths on different tasks at once each follow their own path")
    func concurrent() async throws {
        let body = #"{"a":{"v":1},"b":{"v":2}}"#
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let key = index.isMultiple(of: 2) ? "a" : "b"
                    return try decode(Int.self, body, at: [key, "v"]) == (key == "a" ? 1 : 2)
                }
            }
            for try await matched in group { #expect(matched) }
        }
    }
}

import Foundation
import NetCore
import Testing

/// `JSONValue`: untyped JSON that decodes any document, keeps booleans apart from numbers and object keys as sent.
@Suite("JSONValue")
struct JSONValueTests {
    func decode(_ text: String, with decoder: JSONDecoder = JSONDecoder()) throws -> JSONValue {
        try decoder.decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test("every kind of JSON value decodes to its case")
    func kinds() throws {
        let value = try decode(#"{"n":null,"t":true,"f":false,"i":42,"d":-2.5,"s":"hi","a":[1,"x",[]],"o":{"k":{}}}"#)
        #expect(
            value
                == .object([
                    "n": .null, "t": .bool(true), "f": .bool(false), "i": .number(42), "d": .number(-2.5),
                    "s": .string("hi"),
                    "a": .array([.number(1), .string("x"), .array([])]), "o": .object(["k": .object([:])]),
                ]))
        #expect(try decode("null") == .null)
        #expect(try decode("7") == .number(7))
        #expect(try decode(#""text""#) == .string("text"))
        #expect(try decode("[]") == .array([]))
    }

    @Test("booleans stay booleans and numbers stay numbers: true is not 1, \"1\" is not 1")
    func noCoercion() throws {
        #expect(try decode("[true, 1, \"1\", 0, false]") == [true, 1, "1", 0, false])
    }

    @Test("object keys are kept as sent, whatever the decoder's key strategy")
    func keysKept() throws {
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decode(#"{"user_name":{"first_name":"a"}}"#, with: snake) == ["user_name": ["first_name": "a"]])
    }

    @Test("encoding gives back the JSON it stands for")
    func roundTrip() throws {
        let value: JSONValue = ["list": [1, 2.5, "three", nil, true], "empty": [:], "nested": ["a": ["b": false]]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
        #expect(value.description == #"{"empty":{},"list":[1,2.5,"three",null,true],"nested":{"a":{"b":false}}}"#)
    }

    @Test("a malformed document is a DecodingError")
    func malformed() {
        #expect(throws: DecodingError.self) { try decode(#"{"a": }"#) }
    }

    @Test("accessors answer for their own case only")
    func accessors() {
        let value: JSONValue = [
            "name": "ann", "age": 41, "ratio": 0.5, "tags": ["a", "b"], "admin": false, "boss": nil,
        ]
        #expect(value["name"]?.stringValue == "ann")
        #expect(value["age"]?.intValue == 41)
        #expect(value["ratio"]?.intValue == nil)
        #expect(value["ratio"]?.doubleValue == 0.5)
        #expect(value["tags"]?[1]?.stringValue == "b")
        #expect(value["tags"]?[2] == nil)
        #expect(value["tags"]?.arrayValue?.count == 2)
        #expect(value["admin"]?.boolValue == false)
        #expect(value["boss"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["name"]?["x"] == nil)
        #expect(value[0] == nil)
        #expect(value.objectValue?.count == 6)
        #expect(JSONValue.number(1e300).intValue == nil)
        let nested: JSONValue = ["a": ["b": ["c": 3]]]
        #expect(nested[path: ["a", "b", "c"]] == 3)
        #expect(nested[path: ["a", "x"]] == nil)
        #expect(nested[path: ["a", "b", "c", "d"]] == nil)
    }

    @Test("literals build the matching cases; a repeated key keeps its last value")
    func literals() {
        let value: JSONValue = ["a": 1, "a": 2]
        #expect(value == .object(["a": .number(2)]))
        let nothing: JSONValue = nil
        #expect(nothing == .null)
        #expect(JSONValue(floatLiteral: 1.5) == .number(1.5))
        #expect(JSONValue(booleanLiteral: true) == .bool(true))
    }

    @Test("values are hashable: equal values hash alike, usable in sets")
    func hashable() {
        let set: Set<JSONValue> = [["a": 1], ["a": 1], [1, 2], "x"]
        #expect(set.count == 3)
    }

    @Test("a part of an untyped answer decodes into a typed value")
    func typedPart() throws {
        struct Item: Decodable, Equatable { let id: Int }
        let value: JSONValue = ["items": [["id": 1], ["id": 2]]]
        #expect(try value["items"]?.decode([Item].self) == [Item(id: 1), Item(id: 2)])
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value, for answers whose shape you do not want to (or cannot) declare as a type.
///
/// Use it as a request's `Response` (the whole body, or the value at its `responseKeyPath`), or as a field of
/// your own `Codable` types for a part whose shape varies:
///
/// ```swift
/// struct GetConfig: Endpoint {
///     typealias Response = JSONValue
///     var path: String { "/config" }
///     var method: HTTPMethod { .get }
/// }
/// let config = try await executor.send(GetConfig(), baseURL: api)
/// let retries = config["limits"]?["retries"]?.intValue          // nil when absent or not a whole number
/// let flags: JSONValue = ["beta": true, "ratio": 0.5, "tags": ["a", "b"], "owner": nil]
/// ```
///
/// Numbers are `Double`s, as JSON's are in most implementations: a whole number above 2^53 loses precision.
/// Object keys are kept as the body spells them, whatever the decoder's `keyDecodingStrategy`.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object: its members by name.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    ///
    /// Tries the cheap scalar kinds before the containers; a number too large for a `Double` fails as the decoder
    /// reports it.
    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else if var elements = try? decoder.unkeyedContainer() {
            var array: [JSONValue] = []
            if let count = elements.count { array.reserveCapacity(count) }
            while !elements.isAtEnd { array.append(try elements.decode(JSONValue.self)) }
            self = .array(array)
        } else {
            // A `[String: _]` dictionary keeps its keys as they are: no key decoding strategy renames them.
            self = .object(try single.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case .bool(let value): try single.encode(value)
        case .number(let value): try single.encode(value)
        case .string(let value): try single.encode(value)
        case .array(let value): try single.encode(value)
        case .object(let value): try single.encode(value)
        }
    }
}

extension JSONValue {
    /// The member named `key` of an object; `nil` when absent or when the value is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; `nil` when out of bounds or when the value is not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The value reached by following object member names in turn; `nil` as soon as one is missing.
    public subscript(path path: [String]) -> JSONValue? {
        var value: JSONValue? = self
        for key in path { value = value?[key] }
        return value
    }

    /// Whether the value is `null`.
    public var isNull: Bool { self == .null }

    /// The boolean, when the value is one.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The number, when the value is one.
    public var doubleValue: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The number as an `Int`, when the value is a whole number that fits one (`2.5` and `1e300` give `nil`).
    public var intValue: Int? {
        guard case .number(let value) = self else { return nil }
        return Int(exactly: value)
    }

    /// The string, when the value is one.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The elements, when the value is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The members, when the value is an object.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// Decodes a typed value from this one (for a part of an untyped answer whose shape you know), by encoding it
    /// back to JSON and decoding that with `decoder`.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder())
        throws -> Value
    {
        try decoder.decode(Value.self, from: JSONEncoder().encode(self))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text, object members sorted by name.
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "<JSONValue not representable as JSON>" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `nil` is ``null``.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A ``number(_:)``.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A ``number(_:)``.
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An ``object(_:)``; a name given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

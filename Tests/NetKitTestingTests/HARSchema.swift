import Foundation

/// The HAR 1.2 specification's structure, checked field by field: what a HAR viewer needs to open a file. Each
/// object lists its required fields and their types, and its optional ones; a field the specification does not
/// name must begin with an underscore (its rule for custom fields).
enum HARSchema {
    enum Kind {
        case string, integer, number, boolean, dateTime, anyObject
        case object(Shape)
        case array(Shape)

        var name: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .number: "a number"
            case .boolean: "a boolean"
            case .object, .anyObject: "an object"
            case .array: "an array"
            case .dateTime: "an ISO 8601 date"
            }
        }
    }

    struct Shape {
        var required: [String: Kind]
        var optional: [String: Kind] = [:]
    }

    /// A JSON value that keeps booleans apart from numbers (`JSONSerialization` on Linux reads `0` as `false`).
    enum JSON: Decodable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSON])
        case object([String: JSON])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSON].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSON].self))
            }
        }
    }

    /// What breaks the specification in `data`, one line per violation: empty for a valid file.
    static func violations(in data: Data) -> [String] {
        guard let root = try? JSONDecoder().decode(JSON.self, from: data) else { return ["not JSON"] }
        var found: [String] = []
        check(root, as: .object(archive), at: "$", into: &found)
        return found
    }

    static let record = Shape(required: ["name": .string, "value": .string], optional: ["comment": .string])
    static let cookie = Shape(
        required: ["name": .string, "value": .string],
        optional: [
            "path": .string, "domain": .string, "expires": .dateTime, "httpOnly": .boolean, "secure": .boolean,
            "comment": .string,
        ])
    static let creator = Shape(required: ["name": .string, "version": .string], optional: ["comment": .string])
    static let postData = Shape(
        required: ["mimeType": .string],
        optional: [
            "params": .array(
                Shape(
                    required: ["name": .string],
                    optional: ["value": .string, "fileName": .string, "contentType": .string, "comment": .string])),
            "text": .string, "comment": .string,
        ])
    static let request = Shape(
        required: [
            "method": .string, "url": .string, "httpVersion": .string, "cookies": .array(cookie),
            "headers": .array(record), "queryString": .array(record), "headersSize": .integer, "bodySize": .integer,
        ],
        optional: ["postData": .object(postData), "comment": .string])
    static let content = Shape(
        required: ["size": .integer, "mimeType": .string],
        optional: ["compression": .integer, "text": .string, "encoding": .string, "comment": .string])
    static let response = Shape(
        required: [
            "status": .integer, "statusText": .string, "httpVersion": .string, "cookies": .array(cookie),
            "headers": .array(record), "content": .object(content), "redirectURL": .string, "headersSize": .integer,
            "bodySize": .integer,
        ],
        optional: ["comment": .string])
    static let timings = Shape(
        required: ["send": .number, "wait": .number, "receive": .number],
        optional: ["blocked": .number, "dns": .number, "connect": .number, "ssl": .number, "comment": .string])
    static let entry = Shape(
        required: [
            "startedDateTime": .dateTime, "time": .number, "request": .object(request), "response": .object(response),
            "cache": .anyObject, "timings": .object(timings),
        ],
        optional: ["pageref": .string, "serverIPAddress": .string, "connection": .string, "comment": .string])
    static let log = Shape(
        required: ["version": .string, "creator": .object(creator), "entries": .array(entry)],
        optional: ["browser": .object(creator), "pages": .array(Shape(required: [:])), "comment": .string])
    static let archive = Shape(required: ["log": .object(log)])

    private static func check(_ value: JSON, as kind: Kind, at path: String, into found: inout [String]) {
        switch (kind, value) {
        case (.string, .string), (.boolean, .bool), (.anyObject, .object):
            return
        case (.dateTime, .string(let text)):
            if (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) == nil,
                (try? Date.ISO8601FormatStyle().parse(text)) == nil
            {
                found.append("\(path): not an ISO 8601 date")
            }
        case (.integer, .number(let number)):
            if number.rounded() != number { found.append("\(path): not an integer") }
        case (.number, .number(let number)):
            if number < -1 { found.append("\(path): a number below -1") }
        case (.array(let shape), .array(let items)):
            for (index, item) in items.enumerated() {
                check(item, as: .object(shape), at: "\(path)[\(index)]", into: &found)
            }
        case (.object(let shape), .object(let object)):
            for (name, kind) in shape.required {
                guard let member = object[name] else {
                    found.append("\(path).\(name): missing")
                    continue
                }
                check(member, as: kind, at: "\(path).\(name)", into: &found)
            }
            for (name, member) in object where shape.required[name] == nil {
                if let kind = shape.optional[name] {
                    check(member, as: kind, at: "\(path).\(name)", into: &found)
                } else if !name.hasPrefix("_"), !shape.required.isEmpty || !shape.optional.isEmpty {
                    found.append("\(path).\(name): not a HAR 1.2 field, and custom fields begin with an underscore")
                }
            }
        default:
            found.append("\(path): not \(kind.name)")
        }
    }
}

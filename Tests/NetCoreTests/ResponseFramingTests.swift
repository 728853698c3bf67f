import Foundation
import Testing
@testable import NetCore

/// The framing check every response passes (RFC 9112 §6.3): several different `Content-Length` values without
/// `Transfer-Encoding` are refused; the same value repeated, in one field or several, is not.
@Suite("Response framing: conflicting Content-Length values")
struct ResponseFramingTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let fields: [(name: String, value: String)]
        /// The values the check names, or `nil` when the framing is sound.
        let conflicting: [String]?
        var testDescription: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: " / ") }
    }

    static let rows: [Row] = [
        Row(fields: [("Content-Length", "5")], conflicting: nil),
        Row(fields: [], conflicting: nil),
        Row(fields: [("Content-Length", "5, 5")], conflicting: nil),
        Row(fields: [("Content-Length", "5"), ("content-length", "5")], conflicting: nil),
        Row(fields: [("Content-Length", " 5\t"), ("Content-Length", "5")], conflicting: nil),
        Row(fields: [("Content-Length", "5,,5")], conflicting: nil),
        Row(fields: [("Content-Length", "5"), ("Content-Length", "6")], conflicting: ["5", "6"]),
        Row(fields: [("Content-Length", "5, 6")], conflicting: ["5", "6"]),
        Row(fields: [("Content-Length", "5, 05")], conflicting: ["5", "05"]),
        Row(fields: [("Content-Length", "5, 6"), ("Transfer-Encoding", "chunked")], conflicting: nil),
        Row(
            fields: [("Content-Length", "5"), ("CONTENT-LENGTH", "7"), ("Content-Length", "5")],
            conflicting: ["5", "7", "5"]),
    ]

    @Test("conflicting values are found, repeated ones are not", arguments: rows)
    func conflicting(_ row: Row) throws {
        let head = HTTPResponseHead(statusCode: 200, headerFields: try HTTPHeaderFields(row.fields))
        #expect(head.conflictingContentLengths == row.conflicting)
    }

    @Test("the error names the values, and the host is asked for only when the check fails")
    func hostOnlyOnFailure() throws {
        let sound = HTTPResponseHead(statusCode: 200, headerFields: try HTTPHeaderFields([("Content-Length", "5")]))
        try sound.checkFraming(
            host: {
                Issue.record("the host was computed for a sound head")
                return nil
            }())
        let unsound = HTTPResponseHead(
            statusCode: 200, headerFields: try HTTPHeaderFields([("Content-Length", "5"), ("Content-Length", "6")]))
        let error = #expect(throws: TransportError.self) { try unsound.checkFraming(host: "api.test") }
        #expect(error?.kind == .badResponse)
        #expect(error?.host == "api.test")
        #expect(error?.detail?.contains("5, 6") == true)
    }
}

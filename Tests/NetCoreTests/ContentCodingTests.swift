import Foundation
import NetCore
import Testing

/// The one decision every transport takes about a response's `Content-Encoding`: decoded whole, or refused with a
/// malformed-response error that retries do not repeat. Pure: no I/O.
@Suite("Content codings: decoded whole or refused")
struct ContentCodingTests {
    func plan(
        _ values: [String], status: Int = 200, method: HTTPRequestMethod = .get, length: Int64? = 100
    ) -> ContentCoding {
        ContentCoding(contentEncoding: values, statusCode: status, method: method, declaredLength: length)
    }

    @Test("no field, and only identity, decode nothing")
    func identity() {
        #expect(plan([]) == .identity)
        #expect(plan(["identity"]) == .identity)
        #expect(plan(["Identity, identity"]) == .identity)
        #expect(plan([" , "]) == .identity)
    }

    @Test(
        "known codings are decoded in the reverse of the field's order, identity skipped, any case and spacing",
        arguments: [
            (["gzip"], [ContentCoding.Coding.gzip]),
            (["x-gzip"], [.gzip]),
            (["GZIP"], [.gzip]),
            (["deflate"], [.deflate]),
            (["gzip, gzip"], [.gzip, .gzip]),
            (["gzip", "gzip"], [.gzip, .gzip]),
            (["identity, gzip"], [.gzip]),
            (["gzip,identity"], [.gzip]),
            (["deflate, gzip"], [.gzip, .deflate]),
            (["gzip,,\tdeflate"], [.deflate, .gzip]),
        ])
    func decoded(values: [String], order: [ContentCoding.Coding]) {
        #expect(plan(values) == .decode(order))
    }

    @Test(
        "a coding NetKit does not decode refuses the response, wherever it stands in the list",
        arguments: [
            ["br"], ["zstd"], ["compress"], ["x-compress"], ["gzip, br"], ["br, gzip"], ["gzip", "zstd"],
            ["foo"],
        ])
    func unknown(values: [String]) throws {
        guard case .refuse(let reason) = plan(values) else {
            Issue.record("\(values) was not refused: \(plan(values))")
            return
        }
        #expect(reason.contains("NetKit does not decode"), "\(reason)")
    }

    @Test("the refusal is a malformed response that is not transient, naming the coding printably")
    func refusalError() throws {
        let error = try #require(plan(["br\u{1}"]).refusal(host: "api.example.com"))
        #expect(error.kind == .badResponse)
        #expect(!error.isTransient)
        #expect(!RetryPolicy.isTransient(error))
        #expect(error.host == "api.example.com")
        #expect(error.detail?.contains(#""br\u{01}""#) == true, "\(error)")
        #expect(plan(["gzip"]).refusal(host: nil) == nil)
    }

    @Test("more than four codings are refused, identity included; a long field is named in 40 characters")
    func tooMany() {
        #expect(plan(["gzip, gzip, gzip, gzip"]) == .decode([.gzip, .gzip, .gzip, .gzip]))
        guard case .refuse(let reason) = plan(["identity, identity, identity, identity, gzip"]) else {
            Issue.record("five codings were not refused")
            return
        }
        #expect(reason.contains("more than 4 content codings"), "\(reason)")
        guard case .refuse(let long) = plan([String(repeating: "gzip,", count: 10_000)]) else {
            Issue.record("10,000 codings were not refused")
            return
        }
        #expect(long.count < 400, "\(long.count) characters")
    }

    @Test(
        "a response without a body has nothing to decode, whatever its field says",
        arguments: [
            (200, HTTPRequestMethod.head, Int64?.some(100)), (204, .get, nil), (304, .get, nil), (101, .get, nil),
            (200, .get, 0),
        ])
    func bodyless(status: Int, method: HTTPRequestMethod, length: Int64?) {
        #expect(plan(["br"], status: status, method: method, length: length) == .identity)
    }

    @Test("the decoded bytes of a declared length may reach 100 times it, no more; none without a length")
    func decodedLimit() {
        #expect(plan(["gzip"]).decodedLimit(declaredLength: 1000) == 100_000)
        #expect(plan(["gzip"]).decodedLimit(declaredLength: .max) == .max)
        #expect(plan(["gzip"]).decodedLimit(declaredLength: nil) == nil)
        #expect(plan([]).decodedLimit(declaredLength: 1000) == nil)
        let bomb = ContentCoding.bomb(host: nil, encoded: 10, decoded: 1001)
        #expect(bomb.kind == .badResponse && !bomb.isTransient)
        #expect(bomb.detail?.contains("decompression limit") == true)
    }

    @Test("the plan reads a head's fields")
    func head() throws {
        let head = HTTPResponseHead(
            statusCode: 200,
            headerFields: try HTTPHeaderFields([("Content-Encoding", "gzip"), ("Content-Encoding", "br")]))
        guard case .refuse = ContentCoding(head: head, method: .get) else {
            Issue.record("gzip then br was not refused")
            return
        }
    }
}

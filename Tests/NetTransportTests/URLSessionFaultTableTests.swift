import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The fault table (Docs/Reliability.md) over URLSession: what each misbehaving server ends as.
@Suite("Fault table: URLSession transport", .timeLimit(.minutes(10)))
struct URLSessionFaultTableTests {
    /// What each row ends as over URLSession on Linux, as the table says.
    static let expected: [String: FaultTable.Outcome] = [
        "closed before the head": .transport(.badResponse),
        "garbage instead of a head": .transport(.badResponse),
        "HTTP/0.9 (a body without a head)": .transport(.badResponse),
        "conflicting Content-Length": .transport(.badResponse),
        "malformed chunking": .transport(.connectionLost),
        "body longer than its Content-Length": .response(status: 200, body: "he"),
        "1xx interim response (103 Early Hints)": .response(status: 200, body: "ok"),
        "1 MiB of headers": .transport(.badResponse),
        // FoundationNetworking does not report libcurl's failure to decode: an empty body, as if the server had sent
        // one (Docs/Reliability.md, Docs/Linux.md). Should it ever report it, this row fails and the docs change.
        "corrupt gzip": .response(status: 200, body: ""),
        "Content-Encoding: gzip, gzip": .response(status: 200, body: "ok"),
        "Content-Encoding: identity, gzip": .response(status: 200, body: "ok"),
        "Content-Encoding: x-gzip": .response(status: 200, body: "ok"),
        "Content-Encoding: br": .refused(.badResponse),
        "Content-Encoding: zstd": .refused(.badResponse),
        "Content-Encoding: compress": .refused(.badResponse),
        "Content-Encoding: netkit-unknown": .refused(.badResponse),
        "gzip bomb": .refused(.badResponse),
        "redirect loop": .transport(.tooManyRedirects),
        "JSON nested 100,000 deep": .decoding,
    ]

    @Test("each misbehaving server ends as the table says", arguments: FaultTable.rows.map(\.name))
    func row(_ name: String) async throws {
        let row = try #require(FaultTable.rows.first { $0.name == name })
        let outcome = try await FaultTable.run(row, on: URLSessionTransport())
        #expect(outcome == Self.expected[name], "\(name): \(outcome)")
    }
}

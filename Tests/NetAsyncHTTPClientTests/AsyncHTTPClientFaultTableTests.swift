#if AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetKitTesting
import Testing

/// The fault table (Docs/Reliability.md) over AsyncHTTPClient: what each misbehaving server ends as.
@Suite("Fault table: AsyncHTTPClient transport", .timeLimit(.minutes(10)))
struct AsyncHTTPClientFaultTableTests {
    static let expected: [String: FaultTable.Outcome] = [
        "closed before the head": .transport(.connectionReset),
        "garbage instead of a head": .transport(.badResponse),
        "HTTP/0.9 (a body without a head)": .transport(.badResponse),
        "conflicting Content-Length": .transport(.badResponse),
        "malformed chunking": .transport(.connectionLost),
        "body longer than its Content-Length": .response(status: 200, body: "he"),
        "1xx interim response (103 Early Hints)": .response(status: 200, body: "ok"),
        "1 MiB of headers": .transport(.badResponse),
        "corrupt gzip": .refused(.badResponse),
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
        "head cut off mid-way": .transport(.badResponse),
    ]

    @Test(
        "each misbehaving server ends as the table says",
        arguments: (FaultTable.rows + [FaultTable.cutMidHead]).map(\.name))
    func row(_ name: String) async throws {
        let row = try #require((FaultTable.rows + [FaultTable.cutMidHead]).first { $0.name == name })
        let transport = AsyncHTTPClientTransport()
        let outcome = try await FaultTable.run(row, on: transport)
        try await transport.shutdown()
        #expect(outcome == Self.expected[name], "\(name): \(outcome)")
    }
}
#endif

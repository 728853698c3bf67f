#if AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetKitTesting
import Testing

/// The download rows of Docs/Reliability.md over AsyncHTTPClient: each case ends as on every other transport.
@Suite("Download table: AsyncHTTPClient transport", .timeLimit(.minutes(10)))
struct AsyncHTTPClientDownloadTableTests {
    @Test("each download case ends as the table says", arguments: DownloadTable.rows.map(\.name))
    func row(_ name: String) async throws {
        let row = try #require(DownloadTable.rows.first { $0.name == name })
        let transport = AsyncHTTPClientTransport()
        let outcome = try await DownloadTable.run(row, on: transport)
        try await transport.shutdown()
        #expect(outcome == row.expected, "\(name)")
    }
}
#endif

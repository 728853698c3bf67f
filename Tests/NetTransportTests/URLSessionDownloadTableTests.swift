import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The download rows of Docs/Reliability.md over URLSession: each case ends as on every other transport.
@Suite("Download table: URLSession transport", .timeLimit(.minutes(10)))
struct URLSessionDownloadTableTests {
    @Test("each download case ends as the table says", arguments: DownloadTable.rows.map(\.name))
    func row(_ name: String) async throws {
        let row = try #require(DownloadTable.rows.first { $0.name == name })
        let outcome = try await DownloadTable.run(row, on: URLSessionTransport())
        #expect(outcome == row.expected, "\(name)")
    }
}

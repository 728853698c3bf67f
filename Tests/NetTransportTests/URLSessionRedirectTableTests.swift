import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The redirect table (Docs/Reliability.md) over URLSession: the engine decides every hop, as on every transport.
@Suite("Redirect table: URLSession transport", .timeLimit(.minutes(10)))
struct URLSessionRedirectTableTests {
    /// Ephemeral: the default configuration's cookie store is the process's, which other tests fill.
    @Test("each chain ends as the table says", arguments: RedirectTable.rows.map(\.name))
    func row(_ name: String) async throws {
        let row = try #require(RedirectTable.rows.first { $0.name == name })
        let outcome = try await RedirectTable.run(row, on: URLSessionTransport(configuration: .ephemeral))
        #expect(outcome == row.expected, "\(name)")
    }

    @Test(
        "each chain ends as the table says over SessionProtocolTransport with a URLSession",
        arguments: RedirectTable.rows.map(\.name))
    func plainSession(_ name: String) async throws {
        let row = try #require(RedirectTable.rows.first { $0.name == name })
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let outcome = try await RedirectTable.run(row, on: SessionProtocolTransport(session: session))
        #expect(outcome == row.expected, "\(name)")
    }
}

#if AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetKitTesting
import Testing

/// The redirect table (Docs/Reliability.md) over AsyncHTTPClient: the same outcome as on every transport.
@Suite("Redirect table: AsyncHTTPClient transport", .timeLimit(.minutes(10)))
struct AsyncHTTPClientRedirectTableTests {
    @Test("each chain ends as the table says", arguments: RedirectTable.rows.map(\.name))
    func row(_ name: String) async throws {
        let row = try #require(RedirectTable.rows.first { $0.name == name })
        let transport = AsyncHTTPClientTransport()
        let outcome: String
        do {
            outcome = try await RedirectTable.run(row, on: transport)
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        #expect(outcome == row.expected, "\(name)")
    }
}
#endif

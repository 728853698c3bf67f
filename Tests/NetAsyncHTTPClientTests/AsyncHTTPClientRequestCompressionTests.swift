#if AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetKitTesting
import Testing

/// RequestCompressionPlugin over AsyncHTTPClient, over loopback TCP: a body in memory and a file, each compressed
/// with gzip and with deflate, reach a server that inflates them to what was sent, framed by their compressed
/// length. The same check as URLSessionRequestCompressionTests.
@Suite("AsyncHTTPClient transport: compressed request bodies", .timeLimit(.minutes(10)))
struct AsyncHTTPClientRequestCompressionTests {
    @Test(
        "a 1 MiB JSON body and a 5 MiB file arrive compressed, framed and whole", arguments: RequestBodyCoding.allCases)
    func compressedBodies(_ coding: RequestBodyCoding) async throws {
        let transport = AsyncHTTPClientTransport()
        let problems: [String]
        do {
            problems = try await CompressedUploadCheck.run(coding, on: transport)
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        #expect(problems == [])
    }
}
#endif

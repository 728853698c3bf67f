import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// RequestCompressionPlugin over URLSession, over loopback TCP: a body in memory and a file, each compressed with
/// gzip and with deflate, reach a server that inflates them to what was sent, framed by their compressed length.
/// The same check as AsyncHTTPClientRequestCompressionTests.
@Suite("URLSession transport: compressed request bodies", .timeLimit(.minutes(10)))
struct URLSessionRequestCompressionTests {
    @Test(
        "a 1 MiB JSON body and a 5 MiB file arrive compressed, framed and whole", arguments: RequestBodyCoding.allCases)
    func compressedBodies(_ coding: RequestBodyCoding) async throws {
        #expect(try await CompressedUploadCheck.run(coding, on: URLSessionTransport()) == [])
    }
}

import NetKitTesting
import NetTransport
import Testing

/// The URLSession transport against NetKitTesting's transport conformance suite, one test case per check.
@Suite("URLSession transport conformance")
struct URLSessionConformanceTests {
    @Test(arguments: TransportConformance.checks)
    func conforms(_ check: TransportConformanceCheck) async throws {
        // URLSession cannot pause a transfer: a buffer that holds the large body keeps the large-body check about
        // correctness, not about whether a busy machine lets the consumer keep up with libcurl.
        let options = TransportConformanceOptions()
        try await check.run(against: URLSessionTransport(bufferLimit: 2 * options.largeBodyBytes), options: options)
    }
}

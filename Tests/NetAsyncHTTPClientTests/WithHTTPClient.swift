#if AsyncHTTPClient
import AsyncHTTPClient

/// Runs `body` with a client of the test's own and shuts it down on every way out, a thrown error or a time limit's
/// cancellation included: AsyncHTTPClient stops the process when a client it made is released unshut, which would
/// end the whole test run over one failed test.
func withHTTPClient<Result>(
    _ configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
    _ body: (HTTPClient) async throws -> Result
) async throws -> Result {
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    let result: Result
    do {
        result = try await body(client)
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
    return result
}
#endif

/// The streaming half of ``NetworkManager``, as EKNetwork declares it, for mocking and dependency injection.
///
/// Separate from ``NetworkManaging`` so that existing mocks of that protocol are unaffected.
public protocol NetworkStreaming: AnyObject {
    /// Sends `request` and returns its body as it arrives (NDJSON, server-sent events, chunked output).
    nonisolated(nonsending) func stream<T: NetworkRequest>(
        _ request: T,
        accessToken: (() -> String?)?
    ) async throws -> StreamingResponse
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

extension RequestExecutor {
    /// Sends `request` and returns its body as it arrives: EKNetwork's `stream(_:accessToken:)` on the engine,
    /// for users of NetCore + NetTransport + NetStreaming without `NetworkManager`.
    ///
    /// The same road as `send` — base URL, path checks, query, headers, `Authorization`, User-Agent, body, plugins —
    /// then: on 401, one credential renewal and one resend before any body byte is handed over; no retry policy
    /// and no progress; a non-2xx body drained up to ``errorPayloadLimit`` (1 MiB by default; one byte more is
    /// ``StreamingError/errorPayloadTooLarge(limitBytes:)``), then the request's `errorDecoder` result or
    /// ``HTTPError``.
    /// - Throws: the errors of `send`, ``StreamingError/invalidResponse`` for a response that is not HTTP.
    nonisolated(nonsending) public func stream<Request: Endpoint>(
        _ request: Request,
        baseURL: URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil
    ) async throws -> StreamingResponse {
        do {
            let (response, _) = try await streamingResponse(
                for: request, baseURL: baseURL, accessToken: accessToken, credentials: credentials)
            return StreamingResponse(head: response.head, body: response.body.presenting(presentation))
        } catch NetworkError.invalidResponse {
            throw presentation.present(StreamingError.invalidResponse)
        }
    }
}

extension RequestExecutor {
    /// Server-sent events from `request` that reconnect as the WHATWG standard's event source does; see
    /// ``EventSource``. Each connection reads `accessToken` afresh on the caller's actor and takes the same road
    /// as ``stream(_:baseURL:accessToken:credentials:)``, with `Accept: text/event-stream` and `Last-Event-ID`.
    public func eventSource<Request: Endpoint & Sendable>(
        _ request: Request,
        baseURL: @escaping @Sendable () -> URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil,
        policy: EventSourcePolicy = EventSourcePolicy(),
        isolation: isolated (any Actor)? = #isolation
    ) -> EventSource {
        let provider = BearerTokenCredentials(
            token: CallerIsolated(accessToken, isolation: isolation), recovery: credentials)
        var executor = self
        // The source judges its connections' failures in NetKit's own words and presents only what it ends with.
        executor.presentation = .native
        var source = EventSource(policy: policy, clock: clock, randomUnit: randomUnit) { [executor] lastEventID in
            var connection = executor
            connection.plugins.append(EventStreamHeaders(lastEventID: lastEventID))
            do {
                let (response, _) = try await connection.streamingResponse(
                    for: request, baseURL: baseURL(), credentials: provider)
                return StreamingResponse(head: response.head, body: response.body)
            } catch NetworkError.invalidResponse {
                throw StreamingError.invalidResponse
            }
        }
        source.presentation = presentation
        return source
    }
}

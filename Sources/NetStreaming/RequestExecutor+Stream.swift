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
    /// and no progress; a non-2xx body drained up to ``RequestExecutor/Configuration/errorPayloadLimit`` (1 MiB by default; one byte more is
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
            return StreamingResponse(head: response.head, body: response.body.presenting(configuration.presentation))
        } catch NetworkError.invalidResponse {
            throw configuration.presentation.present(StreamingError.invalidResponse)
        }
    }
}

extension RequestExecutor {
    /// Server-sent events from `request` that reconnect as the WHATWG standard's event source does; see
    /// ``EventSource``. Each connection takes the same road as ``stream(_:baseURL:accessToken:credentials:)``, with
    /// `Accept: text/event-stream` and `Last-Event-ID`.
    ///
    /// Called on an actor (the main actor, say), each connection reads `accessToken` afresh on that actor. Called
    /// outside any actor, `accessToken` is read once, here, and never kept: the source outlives this call and may
    /// connect from any task, where calling a closure that is not `Sendable` could race with its owner. Such a
    /// source cannot read the token a renewal obtains: after one it ends with ``RenewedTokenUnavailable`` rather
    /// than send the rejected token again. To read a token afresh for each connection from there, use
    /// ``eventSource(_:baseURL:tokenProvider:credentials:policy:)``.
    public func eventSource<Request: Endpoint & Sendable>(
        _ request: Request,
        baseURL: @escaping @Sendable () -> URL,
        accessToken: (() -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil,
        policy: EventSourcePolicy = EventSourcePolicy(),
        isolation: isolated (any Actor)? = #isolation
    ) -> EventSource {
        eventSource(
            request, baseURL: baseURL, accessToken: accessToken, renewedToken: nil, credentials: credentials,
            policy: policy, isolation: isolation)
    }

    /// ``eventSource(_:baseURL:accessToken:credentials:policy:isolation:)``, reading `renewedToken` after a renewal
    /// when it is called outside any actor (where `accessToken` is read once): `NetworkManager` passes its
    /// refresher's current token there.
    package func eventSource<Request: Endpoint & Sendable>(
        _ request: Request,
        baseURL: @escaping @Sendable () -> URL,
        accessToken: (() -> String?)?,
        renewedToken: (@Sendable () -> String?)?,
        credentials: (any CredentialRecovery)?,
        policy: EventSourcePolicy,
        isolation: isolated (any Actor)?
    ) -> EventSource {
        let provider: any CredentialProvider
        if isolation == nil, let accessToken {
            provider = SnapshotTokenCredentials(
                snapshot: accessToken(), renewedToken: renewedToken, recovery: credentials)
        } else {
            provider = BearerTokenCredentials(
                token: CallerIsolated(accessToken, isolation: isolation), recovery: credentials)
        }
        return eventSource(request, baseURL: baseURL, credentials: provider, policy: policy)
    }

    /// Server-sent events from `request`, like ``eventSource(_:baseURL:accessToken:credentials:policy:isolation:)``,
    /// reading the token from `tokenProvider` afresh for each connection, from whichever task connects.
    public func eventSource<Request: Endpoint & Sendable>(
        _ request: Request,
        baseURL: @escaping @Sendable () -> URL,
        tokenProvider: @escaping @Sendable () -> String?,
        credentials: (any CredentialRecovery)? = nil,
        policy: EventSourcePolicy = EventSourcePolicy()
    ) -> EventSource {
        // Safe without an actor: the provider is Sendable.
        let token = CallerIsolated<(() -> String?)?>(tokenProvider, isolation: nil)
        return eventSource(
            request, baseURL: baseURL, credentials: BearerTokenCredentials(token: token, recovery: credentials),
            policy: policy)
    }

    private func eventSource<Request: Endpoint & Sendable>(
        _ request: Request,
        baseURL: @escaping @Sendable () -> URL,
        credentials provider: any CredentialProvider,
        policy: EventSourcePolicy
    ) -> EventSource {
        var executor = self
        // The source judges its connections' failures in NetKit's own words and presents only what it ends with.
        executor.configuration.presentation = .native
        var source = EventSource(policy: policy, clock: configuration.clock, randomUnit: configuration.randomUnit) {
            [executor] lastEventID in
            var connection = executor
            connection.configuration.plugins.append(EventStreamHeaders(lastEventID: lastEventID))
            do {
                let (response, _) = try await connection.streamingResponse(
                    for: request, baseURL: baseURL(), credentials: provider)
                return StreamingResponse(head: response.head, body: response.body)
            } catch NetworkError.invalidResponse {
                throw StreamingError.invalidResponse
            }
        }
        source.presentation = configuration.presentation
        return source
    }
}

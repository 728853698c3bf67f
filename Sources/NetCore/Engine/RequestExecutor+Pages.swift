#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestExecutor {
    /// The pages of a paginated list, each found by the previous page's `Link` header (RFC 8288): `rel="next"` for
    /// ``NextPageLink/linkHeader``.
    ///
    /// ```swift
    /// for try await page in executor.pages(of: ListUsers(), baseURL: api, next: .linkHeader) {
    ///     print(page.value.count, page.response.statusCode)
    /// }
    /// ```
    ///
    /// The first page is `request`; each next one is the same request aimed at the link's URL (resolved against the
    /// URL that answered, its query sent exactly as the server wrote it). Every page takes the road of `send`; see
    /// ``PageSequence`` for when the sequence ends and ``PaginationPolicy`` for its bounds.
    /// - Parameters:
    ///   - request: The first page's request.
    ///   - baseURL: The URL the request's path is appended to, unless the request names its own `baseURL`.
    ///   - next: Which link leads to the next page.
    ///   - tokenProvider: Read before every attempt of every page, from whichever task iterates; a non-empty token is
    ///     sent as `Authorization: Bearer` unless the request sets its own. (`send`'s `accessToken` closure is not
    ///     `Sendable`, and the sequence outlives this call.)
    ///   - credentials: Renews the credential on 401 (once per page), when the request allows retries.
    ///   - policy: The page limit and where links may lead.
    public func pages<Request: Endpoint & Sendable>(
        of request: Request,
        baseURL: URL,
        next: NextPageLink,
        tokenProvider: (@Sendable () -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil,
        policy: PaginationPolicy = PaginationPolicy()
    ) -> PageSequence<Request> {
        PageSequence(
            executor: self, request: request, baseURL: baseURL,
            credentials: Self.credentials(tokenProvider, credentials), next: .link(next), policy: policy)
    }

    /// The pages of a paginated list found by its `Link` header, like
    /// ``pages(of:baseURL:next:tokenProvider:credentials:policy:)``, with a credential of your own (an OAuth
    /// `Authenticator`, a signing key).
    public func pages<Request: Endpoint & Sendable>(
        of request: Request,
        baseURL: URL,
        next: NextPageLink,
        credentials: any CredentialProvider,
        policy: PaginationPolicy = PaginationPolicy()
    ) -> PageSequence<Request> {
        PageSequence(
            executor: self, request: request, baseURL: baseURL, credentials: credentials, next: .link(next),
            policy: policy)
    }

    /// The pages of a paginated list, each asked for with the request `next` makes from the page before it: for
    /// a cursor or an offset in the body or a header. `next` returns `nil` after the last page.
    ///
    /// ```swift
    /// let pages = executor.pages(of: ListUsers(cursor: nil), baseURL: api) { page in
    ///     page.value.nextCursor.map { ListUsers(cursor: $0) }
    /// }
    /// for try await page in pages { users += page.value.users }
    /// ```
    ///
    /// Every page takes the road of `send`; see ``PageSequence`` for when the sequence ends. A cursor that never
    /// ends stops at ``PaginationPolicy/maxPages`` with ``PaginationError``; an error `next` throws ends the
    /// sequence with it.
    /// - Parameters:
    ///   - request: The first page's request.
    ///   - baseURL: The URL each request's path is appended to, unless the request names its own `baseURL`.
    ///   - tokenProvider: Read before every attempt of every page, from whichever task iterates.
    ///   - credentials: Renews the credential on 401 (once per page), when the request allows retries.
    ///   - policy: The page limit.
    ///   - next: The request of the page after the one given, or `nil` when it was the last; called when the loop
    ///     asks for that page.
    public func pages<Request: Endpoint & Sendable>(
        of request: Request,
        baseURL: URL,
        tokenProvider: (@Sendable () -> String?)? = nil,
        credentials: (any CredentialRecovery)? = nil,
        policy: PaginationPolicy = PaginationPolicy(),
        next: @escaping @Sendable (Page<Request>) throws -> Request?
    ) -> PageSequence<Request> {
        PageSequence(
            executor: self, request: request, baseURL: baseURL,
            credentials: Self.credentials(tokenProvider, credentials), next: .cursor(next), policy: policy)
    }

    /// The pages of a paginated list found by a cursor closure, like
    /// ``pages(of:baseURL:tokenProvider:credentials:policy:next:)``, with a credential of your own.
    public func pages<Request: Endpoint & Sendable>(
        of request: Request,
        baseURL: URL,
        credentials: any CredentialProvider,
        policy: PaginationPolicy = PaginationPolicy(),
        next: @escaping @Sendable (Page<Request>) throws -> Request?
    ) -> PageSequence<Request> {
        PageSequence(
            executor: self, request: request, baseURL: baseURL, credentials: credentials, next: .cursor(next),
            policy: policy)
    }

    /// One page: `request` on the road of `send`, aimed at `target` when a link named it.
    nonisolated(nonsending) func page<Request: Endpoint>(
        _ request: Request, baseURL: URL, credentials: any CredentialProvider, target: URL?
    ) async throws -> (value: Request.Response, received: ReceivedResponse, metrics: RequestMetrics) {
        var report = RoadReport()
        let value = try await withDefaults {
            try await perform(
                request, baseURL: baseURL, credentials: credentials, measures: true, target: target, report: &report)
        }
        // `measures: true`: a request that returns has both.
        return (value, report.received!, report.metrics!)
    }

    /// A `Sendable` token provider and a renewal as the engine's credential.
    private static func credentials(
        _ tokenProvider: (@Sendable () -> String?)?, _ recovery: (any CredentialRecovery)?
    ) -> any CredentialProvider {
        guard tokenProvider != nil || recovery != nil else { return NoCredentials() }
        // Safe without an actor: the provider is Sendable.
        let token = CallerIsolated<(() -> String?)?>(tokenProvider, isolation: nil)
        return BearerTokenCredentials(token: token, recovery: recovery)
    }
}

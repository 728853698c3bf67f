import Foundation

extension NetworkManager {
    /// The pages of a paginated list, each found by the previous page's `Link` header (RFC 8288): `rel="next"` for
    /// `.linkHeader`. The engine's `pages(of:baseURL:next:tokenProvider:credentials:policy:)` with this manager's
    /// base URL, settings and ``tokenRefresher``.
    ///
    /// ```swift
    /// for try await page in manager.pages(of: ListUsers(), next: .linkHeader) {
    ///     users += page.value
    /// }
    /// ```
    ///
    /// Every page takes the road of ``send(_:accessToken:)`` (a 401 refreshes the token once per page); a page is
    /// requested only when the loop asks for it. The sequence stops after `policy.maxPages` pages, and at a link
    /// back to a page already fetched, to another origin (unless the policy allows it) or to a scheme other than
    /// `http` and `https`, with `PaginationError`.
    /// - Parameters:
    ///   - request: The first page's request.
    ///   - next: Which link leads to the next page.
    ///   - tokenProvider: Read before every attempt of every page, from whichever task iterates (the sequence
    ///     outlives this call, so the token closure must be `Sendable`).
    ///   - policy: The page limit and where links may lead.
    public func pages<T: Endpoint & Sendable>(
        of request: T,
        next: NextPageLink,
        tokenProvider: (@Sendable () -> String?)? = nil,
        policy: PaginationPolicy = PaginationPolicy()
    ) -> PageSequence<T> {
        let (executor, coordinator) = makeExecutor(streaming: false)
        return executor.pages(
            of: request, baseURL: baseURL(), next: next, tokenProvider: tokenProvider, credentials: coordinator,
            policy: policy)
    }

    /// The pages of a paginated list, each asked for with the request `next` makes from the page before it (a
    /// cursor or offset in the body or a header); `next` returns `nil` after the last page. The engine's
    /// `pages(of:baseURL:tokenProvider:credentials:policy:next:)` with this manager's base URL, settings and
    /// ``tokenRefresher``.
    ///
    /// ```swift
    /// let pages = manager.pages(of: ListUsers(cursor: nil)) { page in
    ///     page.value.nextCursor.map { ListUsers(cursor: $0) }
    /// }
    /// ```
    /// - Parameters:
    ///   - request: The first page's request.
    ///   - tokenProvider: Read before every attempt of every page, from whichever task iterates.
    ///   - policy: The page limit.
    ///   - next: The request of the page after the one given, or `nil` when it was the last.
    public func pages<T: Endpoint & Sendable>(
        of request: T,
        tokenProvider: (@Sendable () -> String?)? = nil,
        policy: PaginationPolicy = PaginationPolicy(),
        next: @escaping @Sendable (Page<T>) throws -> T?
    ) -> PageSequence<T> {
        let (executor, coordinator) = makeExecutor(streaming: false)
        return executor.pages(
            of: request, baseURL: baseURL(), tokenProvider: tokenProvider, credentials: coordinator, policy: policy,
            next: next)
    }
}

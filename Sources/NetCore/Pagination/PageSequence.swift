#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pages of a paginated list, fetched one at a time as they are asked for: the sequence that
/// `RequestExecutor.pages(of:…)` returns.
///
/// ```swift
/// for try await page in executor.pages(of: ListUsers(), baseURL: api, next: .linkHeader) {
///     users += page.value
/// }
/// ```
///
/// Every page takes the engine's one road, the road of `send`: plugins, credential and its renewal, retries,
/// redirects, cookies, cache, metrics. A page is requested only when the loop asks for it, so breaking out of the
/// loop or cancelling its task stops the sequence (a page in flight ends with `CancellationError`). The next page is
/// found by a `Link` header (``NextPageLink``) or by a cursor closure; the sequence ends when there is none.
///
/// It is bounded and refuses to be led astray (see ``PaginationPolicy``): at most ``PaginationPolicy/maxPages``
/// pages; a link back to a page already fetched, a link to another origin (unless allowed), from `https` to `http`
/// (unless the engine's redirect policy allows that), or one that is not `http` or `https` ends it with
/// ``PaginationError``, after the pages before it have been delivered. Each iteration
/// starts again from the first page.
public struct PageSequence<Request: Endpoint & Sendable>: AsyncSequence, Sendable {
    /// A page of the list.
    public typealias Element = Page<Request>
    /// A page's request failure (the errors of `send`), or ``PaginationError``.
    public typealias Failure = any Error

    /// How the next page is found.
    enum Next: Sendable {
        case link(NextPageLink)
        case cursor(@Sendable (Page<Request>) throws -> Request?)
    }

    let executor: RequestExecutor
    /// The first page's request.
    public let request: Request
    let baseURL: URL
    let credentials: any CredentialProvider
    let next: Next
    /// The bounds and trust rules of the sequence.
    public let policy: PaginationPolicy

    /// Starts from the first page.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self)
    }

    /// Fetches the pages of one pass, one per call.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private enum State {
            case first
            case after(Page<Request>)
            case finished
        }

        private let sequence: PageSequence
        private var state = State.first
        /// Where the pages fetched so far were asked for and answered from: a link to one of them is a loop.
        /// Bounded by the page limit (two entries a page at most).
        private var visited: Set<String> = []

        fileprivate init(sequence: PageSequence) {
            self.sequence = sequence
        }

        /// The next page, or `nil` after the last one.
        public mutating func next() async throws -> Page<Request>? {
            try await next(isolation: nil)
        }

        /// The next page, or `nil` after the last one, its request sent from the caller's actor.
        /// - Throws: the errors of `send` for the page's request, ``PaginationError`` when the next page may not be
        ///   fetched, the cursor closure's error, `CancellationError` when the task is cancelled. The sequence ends
        ///   with the error: a later call returns `nil`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Page<Request>? {
            let request: Request
            let target: URL?
            let number: Int
            switch state {
            case .finished:
                return nil
            case .first:
                state = .finished
                (request, target, number) = (sequence.request, nil, 1)
            case .after(let previous):
                state = .finished
                guard let found = try nextRequest(after: previous) else { return nil }
                guard previous.number < sequence.policy.maxPages else {
                    throw PaginationError(
                        .pageLimitReached(sequence.policy.maxPages), page: previous.number, url: found.target,
                        from: previous.url.flatMap(HTTPOrigin.init))
                }
                (request, target, number) = (found.request, found.target, previous.number + 1)
            }
            try Task.checkCancellation()
            let outcome = try await sequence.executor.page(
                request, baseURL: sequence.baseURL, credentials: sequence.credentials, target: target)
            let page = Page(
                value: outcome.value, response: outcome.received, request: request, number: number,
                metrics: outcome.metrics,
                links: LinkHeader(
                    outcome.received.headerFields, base: outcome.received.url, limits: sequence.policy.linkLimits))
            if let target { visited.insert(Self.key(of: target)) }
            if let url = page.url { visited.insert(Self.key(of: url)) }
            state = .after(page)
            return page
        }

        /// The request of the page after `page`, and the URL it goes to when a link named it; `nil` at the end.
        private func nextRequest(after page: Page<Request>) throws -> (request: Request, target: URL?)? {
            switch sequence.next {
            case .cursor(let makeNext):
                return try makeNext(page).map { ($0, nil) }
            case .link(let rule):
                // A link with an anchor is about another resource than this page.
                guard let link = page.links.links.first(where: { $0.hasRelation(rule.relation) && $0.anchor == nil })
                else { return nil }
                let url = try check(link, of: page)
                return (sequence.request, url)
            }
        }

        /// `link`'s URL, if the sequence may follow it from `page`.
        private func check(_ link: LinkHeader.Link, of page: Page<Request>) throws(PaginationError) -> URL {
            let from = HTTPOrigin(page.url ?? sequence.baseURL)
            guard let url = link.url, let scheme = url.scheme else {
                throw PaginationError(.invalidLink, page: page.number, from: from)
            }
            let lowercased = HeaderValidation.lowercased(scheme)
            guard lowercased == "http" || lowercased == "https" else {
                throw PaginationError(.unsupportedScheme(scheme), page: page.number, url: url, from: from)
            }
            guard let origin = HTTPOrigin(url) else {
                throw PaginationError(.invalidLink, page: page.number, url: url, from: from)
            }
            // The rule of redirects: never from https to http unless the engine allows it.
            if from?.isSecure == true, !origin.isSecure, !sequence.executor.redirectPolicy.allowsInsecureDowngrade {
                throw PaginationError(.insecureDowngrade, page: page.number, url: url, from: from)
            }
            if !sequence.policy.followsLinksToOtherOrigins, origin != from {
                throw PaginationError(.otherOrigin(origin), page: page.number, url: url, from: from)
            }
            if visited.contains(Self.key(of: url)) {
                throw PaginationError(.repeatedLink, page: page.number, url: url, from: from)
            }
            return url
        }

        /// `url` as it goes on the wire: origin, path and query exactly as encoded.
        private static func key(of url: URL) -> String {
            guard let origin = HTTPOrigin(url), let target = try? HTTPRequestHead.target(of: url) else {
                return url.absoluteString
            }
            return origin.description + target.path
        }
    }
}

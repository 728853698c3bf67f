/// The bounds and trust rules of a page sequence: how many pages at most, and where a `Link` may lead.
///
/// ```swift
/// var policy = PaginationPolicy()
/// policy.maxPages = 50
/// for try await page in executor.pages(of: ListUsers(), baseURL: api, next: .linkHeader, policy: policy) { … }
/// ```
public struct PaginationPolicy: Sendable, Hashable {
    /// The most pages a sequence fetches. When the last one allowed still names a next page, asking for it throws
    /// ``PaginationError`` with ``PaginationError/Reason/pageLimitReached(_:)`` rather than end as if the list were
    /// complete. 1,000 by default; at least 1.
    public var maxPages: Int {
        didSet { maxPages = max(1, maxPages) }
    }
    /// Whether a `Link` may lead to another origin (scheme, host and port) than the page that named it. Off by
    /// default: such a link ends the sequence with ``PaginationError/Reason/otherOrigin(_:)``. Turned on, the page
    /// is fetched, but the engine's credentials still go only where its `credentialScope` allows.
    public var followsLinksToOtherOrigins: Bool
    /// How much of each response's `Link` header is read (see ``LinkHeader/Limits``).
    public var linkLimits: LinkHeader.Limits

    /// 1,000 pages by default: a floor under a server that never stops naming a next page.
    public static let defaultMaxPages = 1_000

    /// A policy with these rules.
    public init(
        maxPages: Int = PaginationPolicy.defaultMaxPages,
        followsLinksToOtherOrigins: Bool = false,
        linkLimits: LinkHeader.Limits = .default
    ) {
        self.maxPages = max(1, maxPages)
        self.followsLinksToOtherOrigins = followsLinksToOtherOrigins
        self.linkLimits = linkLimits
    }
}

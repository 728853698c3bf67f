#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a page sequence stopped before the list's end: the pages before it were delivered, the next one was not
/// requested.
///
/// Its text says which page, where its link led and what to change, with query values hidden (a link may carry a
/// token):
///
/// ```swift
/// catch let error as PaginationError where error.reason == .repeatedLink { … }
/// print(error)   // "Page 3's next link leads back to https://api.example.com/users?page=…, which page 2 …"
/// ```
public struct PaginationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What stopped the sequence.
    public enum Reason: Sendable, Equatable {
        /// ``PaginationPolicy/maxPages`` pages were fetched and the last one still names a next page: the limit.
        case pageLimitReached(Int)
        /// The next link leads to a page the sequence has already fetched: the server's pagination loops.
        case repeatedLink
        /// The next link leads to another origin than the page that named it, and
        /// ``PaginationPolicy/followsLinksToOtherOrigins`` is off: the link's origin.
        case otherOrigin(HTTPOrigin)
        /// The next link leaves `https` for `http`, and the engine's `redirectPolicy` does not allow that
        /// (``RedirectPolicy/allowsInsecureDowngrade``).
        case insecureDowngrade
        /// The next link is not an `http` or `https` URL: its scheme.
        case unsupportedScheme(String)
        /// The next link cannot be read as a URL (or is relative to a page whose URL is unknown).
        case invalidLink
    }

    /// What stopped the sequence.
    public let reason: Reason
    /// The number of the page whose link (or cursor) named the page not fetched.
    public let page: Int
    /// Where the next link led, resolved; `nil` for a cursor, or a link that is not a URL.
    public let url: URL?
    /// The origin of the page that named the next one, when known.
    public let from: HTTPOrigin?

    /// Creates an error.
    public init(_ reason: Reason, page: Int, url: URL? = nil, from: HTTPOrigin? = nil) {
        self.reason = reason
        self.page = page
        self.url = url
        self.from = from
    }

    /// A sentence naming the page, the link (query values hidden) and what to change.
    public var description: String {
        let link = url.map { " (\(LogRedaction.url($0)))" } ?? ""
        switch reason {
        case .pageLimitReached(let limit):
            return "Stopped paginating after \(limit) page\(limit == 1 ? "" : "s"): page \(page) names another"
                + " page\(link), and PaginationPolicy.maxPages is \(limit). Raise maxPages if the list is really"
                + " that long."
        case .repeatedLink:
            return "Stopped paginating: page \(page)'s next link\(link) leads to a page already fetched, so the"
                + " server's pagination would loop forever."
        case .otherOrigin(let origin):
            let source = from.map { " than the page's \($0)" } ?? ""
            return "Refused page \(page)'s next link to \(origin): it is another origin\(source). Set"
                + " PaginationPolicy.followsLinksToOtherOrigins if you trust it (credentials still go only where"
                + " credentialScope allows)."
        case .insecureDowngrade:
            return "Refused page \(page)'s next link\(link): it leaves https for http, where anyone on the way could"
                + " read or change the page. Allow it with the engine's RedirectPolicy.allowsInsecureDowngrade only"
                + " if you must."
        case .unsupportedScheme(let scheme):
            return "Refused page \(page)'s next link with the scheme \"\(HeaderValidation.printable(scheme))\": only"
                + " http and https links are followed."
        case .invalidLink:
            return "Stopped paginating: page \(page)'s next link cannot be read as a URL to request."
        }
    }
}

extension PaginationError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

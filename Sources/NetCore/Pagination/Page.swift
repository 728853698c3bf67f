#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One page of a paginated list: the decoded value, the response it came from, and what the request cost.
///
/// ```swift
/// for try await page in executor.pages(of: ListUsers(), baseURL: api, next: .linkHeader) {
///     print(page.number, page.value.count, page.response.statusCode)
/// }
/// ```
///
/// A cursor closure reads the page to say which request comes next: `page.value` for a cursor in the body,
/// `page.response` for one in a header, `page.request` for an offset to advance.
public struct Page<Request: Endpoint> {
    /// The page's body, decoded as `Request.Response`.
    public let value: Request.Response
    /// The response the value was decoded from: status, header fields, body and the URL that answered.
    public let response: ReceivedResponse
    /// The request this page was asked with. A page found by its `Link` is the first request aimed at the link's
    /// URL, so this is the first page's request.
    public let request: Request
    /// The page's place in the sequence: 1 for the first page.
    public let number: Int
    /// NetKit's own measurements of the page's request (attempts, retry waits, bytes, timings).
    public let metrics: RequestMetrics
    /// The response's `Link` header fields, targets resolved against the URL that answered (see ``LinkHeader``).
    public let links: LinkHeader

    /// Creates a page (the page sequence makes them; a test may build one for a cursor closure).
    public init(
        value: Request.Response, response: ReceivedResponse, request: Request, number: Int, metrics: RequestMetrics,
        links: LinkHeader? = nil
    ) {
        self.value = value
        self.response = response
        self.request = request
        self.number = number
        self.metrics = metrics
        self.links = links ?? LinkHeader(response.headerFields, base: response.url)
    }

    /// The URL that answered: the request's, or where redirects led.
    public var url: URL? { response.url }
}

extension Page: Sendable where Request: Sendable, Request.Response: Sendable {}

/// Which link of a response's `Link` header leads to the next page (RFC 8288).
///
/// ```swift
/// executor.pages(of: ListUsers(), baseURL: api, next: .linkHeader)                  // rel="next"
/// executor.pages(of: ListUsers(), baseURL: api, next: .linkHeader(relation: "older"))
/// ```
public struct NextPageLink: Sendable, Hashable {
    /// The relation type of the link to follow, compared case-insensitively.
    public let relation: String

    /// The link whose relation type is `relation`.
    public init(relation: String) {
        self.relation = relation
    }

    /// The `Link` with `rel="next"`, as GitHub's and most paginated APIs send it.
    public static let linkHeader = NextPageLink(relation: "next")

    /// The `Link` with the relation type `relation` (`"prev"` to walk backwards).
    public static func linkHeader(relation: String) -> NextPageLink {
        NextPageLink(relation: relation)
    }
}

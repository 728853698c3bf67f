import Foundation
import Testing
import NetCore

@Suite("PaginationError's words")
struct PaginationErrorTests {
    let link = URL(string: "https://api.example.com/users?page=7&token=s3cr3t")!
    let api = HTTPOrigin(scheme: "https", host: "api.example.com", port: nil)

    @Test(
        "each reason names the page, where the link led (no query value) and what to change",
        arguments: [
            (PaginationError.Reason.pageLimitReached(50), ["after 50 pages", "page 4", "maxPages"]),
            (.repeatedLink, ["page 4", "already fetched", "https://api.example.com/users?"]),
            (
                .otherOrigin(HTTPOrigin(scheme: "http", host: "cdn.example.net", port: 8080)),
                ["page 4", "http://cdn.example.net:8080", "https://api.example.com", "followsLinksToOtherOrigins"]
            ),
            (.unsupportedScheme("ftp"), ["page 4", "\"ftp\"", "only http and https"]),
            (.insecureDowngrade, ["page 4", "leaves https for http", "allowsInsecureDowngrade"]),
            (.invalidLink, ["page 4", "cannot be read as a URL"]),
        ])
    func words(reason: PaginationError.Reason, naming parts: [String]) {
        let error = PaginationError(reason, page: 4, url: link, from: api)
        for part in parts { #expect(error.description.contains(part), "\(error.description)") }
        #expect(!error.description.contains("s3cr3t") && !error.description.contains("page=7"))
        #expect(error.localizedDescription == error.description)
    }

    @Test("a policy's page limit is at least 1; the default is 1,000")
    func policyFloor() {
        #expect(PaginationPolicy(maxPages: 0).maxPages == 1)
        var policy = PaginationPolicy()
        #expect(policy.maxPages == 1_000 && !policy.followsLinksToOtherOrigins)
        policy.maxPages = -5
        #expect(policy.maxPages == 1)
        #expect(NextPageLink.linkHeader.relation == "next")
        #expect(NextPageLink.linkHeader(relation: "prev") == NextPageLink(relation: "prev"))
    }
}

import Foundation
import LoopbackServer
import Testing
import NetKit

/// Pages over real TCP on 127.0.0.1, through URLSession.
@Suite("Pagination over loopback TCP")
struct PaginationIntegrationTests {
    struct ListItems: NetworkRequest {
        typealias Response = [Int]
        var path: String { "/items" }
        var method: HTTPMethod { .get }
    }

    @Test(
        "rel=next links, relative and absolute, are followed to the last page; queries arrive as the links wrote them")
    func followsLinks() async throws {
        let server = try LoopbackServer { request in
            guard request.path == "/api/items" else { return .text("no", status: 404) }
            var response: LoopbackResponse
            switch request.rawQuery {
            case nil:
                response = .json("[1,2]")
                response.headers.append((name: "Link", value: #"</api/items?page=2&tag=a%2Cb>; rel="next""#))
            case "page=2&tag=a%2Cb":
                response = .json("[3,4]")
                // An absolute link this time, to the host the request named.
                let host = request.header("Host") ?? "127.0.0.1"
                response.headers.append(
                    (name: "Link", value: "<http://\(host)/api/items?page=3>; rel=next, </api/items>; rel=first"))
            case "page=3":
                response = .json("[5]")
                response.headers.append((name: "Link", value: "</api/items>; rel=first"))
            default:
                response = .text("unexpected", status: 400)
            }
            return response
        }
        defer { server.stop() }
        let manager = NetworkManager(baseURL: server.baseURL.appending(path: "api"))
        var items: [Int] = []
        for try await page in manager.pages(of: ListItems(), next: .linkHeader, tokenProvider: { "tok" }) {
            items += page.value
            #expect(page.response.statusCode == 200)
        }
        #expect(items == [1, 2, 3, 4, 5])
        #expect(server.requests.map(\.rawQuery) == [nil, "page=2&tag=a%2Cb", "page=3"])
        #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer tok" })
    }
}

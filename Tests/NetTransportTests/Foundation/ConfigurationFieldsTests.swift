import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
@testable import NetTransport
import Testing

/// How a session configuration's header fields join a request (`addingConfigurationFields`): where the request has
/// none of the name, its credentials only where the engine allows the transport's own.
@Suite("A session configuration's header fields on a request")
struct ConfigurationFieldsTests {
    let fields = HTTPHeaderFields([
        HTTPHeaderField(uncheckedName: "Accept-Encoding", value: "br"),
        HTTPHeaderField(uncheckedName: "Authorization", value: "Bearer session"),
        HTTPHeaderField(uncheckedName: "X-Api-Token", value: "k1"),
        HTTPHeaderField(uncheckedName: "X-Trace", value: "t1"),
    ])

    func request(_ own: [String: String], allows: Bool) throws -> TransportRequest {
        let url = try #require(URL(string: "https://api.example.com/a"))
        var request = TransportRequest(head: try HTTPRequestHead(url: url, headerFields: HTTPHeaderFields(own)))
        request.allowsTransportCredentials = allows
        return request
    }

    func sent(_ request: TransportRequest) throws -> [String: String] {
        try URLRequest(head: request).addingConfigurationFields(fields, for: request).allHTTPHeaderFields ?? [:]
    }

    @Test("allowed: every field the request lacks; the request's own and what the conversion added win")
    func allowed() throws {
        let headers = try sent(try request(["authorization": "Bearer mine"], allows: true))
        #expect(headers["Authorization"] ?? headers["authorization"] == "Bearer mine")
        #expect(headers["Accept-Encoding"] == ContentCoding.acceptEncoding)
        #expect(headers["X-Api-Token"] == "k1")
        #expect(headers["X-Trace"] == "t1")
    }

    @Test("withheld: no credential of the configuration's, its other fields still; the request's own stays")
    func withheld() throws {
        let headers = try sent(try request([:], allows: false))
        #expect(headers["Authorization"] == nil)
        #expect(headers["X-Api-Token"] == nil)
        #expect(headers["X-Trace"] == "t1")
        let own = try sent(try request(["Authorization": "Bearer mine"], allows: false))
        #expect(own["Authorization"] == "Bearer mine")
    }
}

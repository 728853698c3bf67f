import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
@testable import NetTransport
import Testing

@Suite("URLRequest from a TransportRequest: the idle timeout")
struct URLRequestIdleTimeoutTests {
    func interval(for idle: Duration) throws -> TimeInterval {
        var request = TransportRequest(
            head: try HTTPRequestHead(method: .get, url: URL(string: "http://example.test")!))
        request.idleTimeout = idle
        return try URLRequest(head: request).timeoutInterval
    }

    #if canImport(FoundationNetworking)
    @Test("libcurl takes whole seconds and truncates: a part of a second is rounded up, never down to zero")
    func roundedUp() throws {
        // Before the fix 0.5 s became 0.5, which libcurl truncated to 0: the request failed at once.
        #expect(try interval(for: .milliseconds(500)) == 1)
        #expect(try interval(for: .milliseconds(2100)) == 3)
        #expect(try interval(for: .seconds(2)) == 2)
    }
    #else
    @Test("Apple's stack takes the interval as it is")
    func exact() throws {
        #expect(try interval(for: .milliseconds(500)) == 0.5)
    }
    #endif
}

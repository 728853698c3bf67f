import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetCore
import NetTransport
import Testing

/// A borrowed session's delegate and server trust: on Linux, FoundationNetworking never asks a delegate about
/// server trust, so a transport that borrows one whose pinning would be skipped refuses to send.
@Suite("A borrowed session's delegate and server trust")
struct BorrowedDelegateTrustTests {
    /// Pins certificates the way an app's delegate does: it answers server-trust challenges, and nothing else.
    final class PinningDelegate: NSObject, URLSessionDelegate, Sendable {
        func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    /// Only observes: it says so.
    final class ObservingDelegate: NSObject, URLSessionTaskDelegate, SystemTrustDelegate, Sendable {}

    static func request(to server: LoopbackServer) throws -> TransportRequest {
        TransportRequest(head: try HTTPRequestHead(url: server.baseURL.appending(path: "pinned")))
    }

    static func session(delegate: (any URLSessionDelegate)?) -> URLSession {
        URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    }

    #if canImport(FoundationNetworking)
    @Test("on Linux, a delegate that may pin certificates is refused before anything is sent, saying why")
    func refusedOnLinux() async throws {
        let server = try LoopbackServer { _ in .text("should not be reached") }
        defer { server.stop() }
        let session = Self.session(delegate: PinningDelegate())
        defer { session.finishTasksAndInvalidate() }
        let transport = URLSessionTransport(borrowing: session)
        let error = await #expect(throws: UnsupportedServerTrust.self) {
            try await transport.send(try Self.request(to: server))
        }
        #expect(server.requestCount == 0, "nothing was sent")
        let text = error?.localizedDescription ?? ""
        #expect(error?.host == "127.0.0.1")
        #expect(text.contains("PinningDelegate"), "names the delegate: \(text)")
        #expect(text.contains("SystemTrustDelegate"), "names the way out: \(text)")
        #expect(text.contains("AsyncHTTPClientTransport"), "names what pins on Linux: \(text)")
        #expect(RetryPolicy.isTransient(try #require(error)) == false)
    }

    @Test("on Linux, URLSession's byte stream, which borrows the session, refuses it too")
    func byteStreamRefusedOnLinux() async throws {
        let server = try LoopbackServer { _ in .text("should not be reached") }
        defer { server.stop() }
        let session = Self.session(delegate: PinningDelegate())
        defer { session.finishTasksAndInvalidate() }
        await #expect(throws: UnsupportedServerTrust.self) {
            _ = try await session.byteStream(for: URLRequest(url: server.baseURL))
        }
        #expect(server.requestCount == 0)
    }
    #else
    @Test("on Apple platforms, a delegate that pins certificates is kept: it gets the server-trust challenges")
    func keptOnApplePlatforms() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let session = Self.session(delegate: PinningDelegate())
        defer { session.finishTasksAndInvalidate() }
        let response = try await URLSessionTransport(borrowing: session).send(try Self.request(to: server))
        #expect(response.statusCode == 200, "plain HTTP raises no server-trust challenge")
    }
    #endif

    @Test(
        "a delegate that adopts SystemTrustDelegate, or none, sends as before",
        arguments: [true, false])
    func systemTrust(hasDelegate: Bool) async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.stop() }
        let session = Self.session(delegate: hasDelegate ? ObservingDelegate() : nil)
        defer { session.finishTasksAndInvalidate() }
        let response = try await URLSessionTransport(borrowing: session).send(try Self.request(to: server))
        #expect(response.statusCode == 200)
        _ = try await response.body.collect(upTo: 1 << 10)
        #expect(server.requestCount == 1)
    }
}

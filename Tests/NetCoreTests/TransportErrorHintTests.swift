import Foundation
import Testing

@testable import NetCore

/// What a transport failure's text says: where (host and port) and what to check.
@Suite("Transport error texts: where and what to check")
struct TransportErrorHintTests {
    func head() throws -> HTTPRequestHead {
        try HTTPRequestHead(url: URL(string: "http://127.0.0.1:8765/v1/todos?page=2")!)
    }

    @Test("the engine's location adds the URL's port, or the scheme's default, and the host when it was missing")
    func located() throws {
        let head = try head()
        let refused = TransportError(.cannotConnect, detail: "IOError errno 111").located(at: head)
        #expect(refused.host == "127.0.0.1" && refused.port == 8765 && refused.location == "127.0.0.1:8765")
        #expect(
            refused.description
                == "Could not connect: 127.0.0.1:8765 (IOError errno 111). Is a server running and listening on "
                + "127.0.0.1:8765? Nothing accepted the connection there")
        let https = try HTTPRequestHead(url: URL(string: "https://[::1]/")!)
        #expect(TransportError(.timedOut, host: "::1").located(at: https).location == "[::1]:443")
        // A host the transport named otherwise (a redirect's, a proxy's) keeps its own text, without a guessed port.
        let other = TransportError(.cannotConnect, host: "proxy.test").located(at: head)
        #expect(other.location == "proxy.test")
    }

    @Test("a body NetKit refuses to decode points at the coding, not at the port or the protocol")
    func undecodableBodyHint() throws {
        let bomb = ContentCoding.bomb(host: nil, encoded: 1_000, decoded: 100_001).located(at: try head())
        #expect(
            bomb.hint == "Ask the server for gzip, deflate or no coding (the request's Accept-Encoding field)")
        #expect(bomb.description.contains("100001 bytes from 1000 encoded"), "\(bomb)")
        #expect(!bomb.description.contains("plain HTTP"), "\(bomb)")
    }

    @Test("each kind whose cause is usually outside the program has a hint; the text never shows a path or query")
    func hints() throws {
        let head = try head()
        let kinds: [TransportError.Kind] = [
            .cannotConnect, .cannotFindHost, .timedOut, .connectionReset, .connectionLost, .notConnected, .badResponse,
            .tlsFailure, .unsupportedURL,
        ]
        for kind in kinds {
            let error = TransportError(kind, detail: "d").located(at: head)
            #expect(error.hint != nil, "\(kind)")
            #expect(!error.description.contains("/v1") && !error.description.contains("page=2"), "\(error)")
        }
        #expect(TransportError(.cancelled).hint == nil)
        #expect(
            TransportError(.cannotFindHost, host: "api.exmaple.com").hint
                == "Check the host name in the URL (api.exmaple.com) and this machine's DNS settings")
    }
}

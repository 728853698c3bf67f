import NetAsyncHTTPClient
import NetKit

extension BoundsChild {
    /// The transports a bounds child of transport-bench runs over, each with its defaults. The roads themselves are
    /// netkit-bench's (the BoundsChild folder, linked here), so both programs measure the same code.
    static let transports: [String: @Sendable () -> any HTTPTransport] = [
        "urlsession": { URLSessionTransport() },
        "ahc": { AsyncHTTPClientTransport() },
    ]
}

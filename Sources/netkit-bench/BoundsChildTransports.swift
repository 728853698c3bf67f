import NetKit

extension BoundsChild {
    /// The transports a bounds child of this program runs over, each with its defaults: URLSession alone (the root
    /// package has no traits; `transport-bench` in Benchmarks/Transports adds AsyncHTTPClient).
    static let transports: [String: @Sendable () -> any HTTPTransport] = [
        "urlsession": { URLSessionTransport() }
    ]
}

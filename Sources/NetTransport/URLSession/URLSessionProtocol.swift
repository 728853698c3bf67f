import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The part of `URLSession` that EKNetwork's `NetworkManager(session:)` accepts, so tests can pass a mock.
///
/// A real `URLSession` passed to `NetworkManager` is not called through this protocol: NetKit builds a
/// ``URLSessionTransport`` from its configuration, which adds progress, streaming and cancellation. Any other
/// conforming type is wrapped in ``SessionProtocolTransport``.
public protocol URLSessionProtocol: Sendable {
    /// Loads `request` and returns the whole body with the response.
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

extension URLSession: URLSessionProtocol {
    /// Loads `request` with `data(for:delegate:)`; on Linux `URLSession` has no `data(for:)` of its own.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }
}

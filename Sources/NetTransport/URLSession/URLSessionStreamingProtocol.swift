import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// The part of a session that EKNetwork's `stream(_:accessToken:)` uses: bytes as they arrive, with the response.
///
/// A plain `URLSession` conforms, on Linux too (where it has no `bytes(for:)`): NetKit itself never goes through
/// this per-byte road for a real session — `NetworkManager` streams a `URLSession`'s requests through a
/// ``URLSessionTransport`` built from it, chunk by chunk. Implement it to test the streaming pipeline without a
/// network; ``ByteStreamTransport`` gathers your bytes into chunks.
public protocol URLSessionStreamingProtocol: Sendable {
    /// Starts `request` and returns its body as single bytes, with the response head.
    func byteStream(for request: URLRequest) async throws -> (AsyncThrowingStream<UInt8, any Error>, URLResponse)
}

extension URLSession: URLSessionStreamingProtocol {
    /// Streams `request` through a transport that borrows this session's configuration and delegate, and
    /// hands the body out one byte per element, as EKNetwork's protocol asks.
    public func byteStream(for request: URLRequest) async throws -> (AsyncThrowingStream<UInt8, any Error>, URLResponse)
    {
        let transport = URLSessionTransport(borrowing: self)
        let response = try await transport.send(TransportRequest(request))
        let body = response.body
        let bytes = AsyncThrowingStream<UInt8, any Error> { continuation in
            let pump = Task {
                do {
                    for try await chunk in body {
                        for byte in chunk { continuation.yield(byte) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                // Keeps the transport (and its session) alive until the body has been read.
                withExtendedLifetime(transport) {}
            }
            continuation.onTermination = { _ in pump.cancel() }
        }
        guard let url = response.url ?? request.url, let head = HTTPURLResponse(response.head, url: url) else {
            throw StreamingError.invalidResponse
        }
        return (bytes, head)
    }
}

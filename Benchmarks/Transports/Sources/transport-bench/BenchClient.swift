import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetAsyncHTTPClient
import NetKit

/// The small JSON body every small GET decodes.
struct Profile: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
}

struct GetProfile: NetworkRequest {
    typealias Response = Profile
    var path: String { "/small.json" }
    var method: HTTPMethod { .get }
}

/// The large body, whole, in memory.
struct Download: NetworkRequest {
    typealias Response = Data
    var path: String { "/large.bin" }
    var method: HTTPMethod { .get }
    func decodeResponse(data: Data, response: URLResponse) throws -> Data { data }
    func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Data { data }
}

/// One way of sending the benchmark's requests.
protocol BenchClient: Sendable {
    var name: String { get }
    /// GET the small JSON and decode it.
    func small() async throws
    /// GET the large body into memory; its length.
    func download() async throws -> Int
}

/// The largest body the benchmark downloads, and the limit every client is given.
let downloadLimit = 256 << 20

/// `URLSession.data(for:)` and `JSONDecoder`: the baseline of NetKit over URLSession.
struct RawURLSession: BenchClient {
    let name = "URLSession (raw)"
    let session: URLSession
    let base: URL

    func small() async throws {
        let (data, _) = try await session.data(for: URLRequest(url: base.appendingPathComponent("small.json")))
        _ = try JSONDecoder().decode(Profile.self, from: data)
    }

    func download() async throws -> Int {
        try await session.data(for: URLRequest(url: base.appendingPathComponent("large.bin"))).0.count
    }
}

/// `HTTPClient.execute`, the body collected, and `JSONDecoder`: the baseline of NetKit over AsyncHTTPClient.
struct RawAsyncHTTPClient: BenchClient {
    let name = "AsyncHTTPClient (raw)"
    let client: HTTPClient
    let base: URL

    func small() async throws {
        let response = try await client.execute(
            HTTPClientRequest(url: base.appendingPathComponent("small.json").absoluteString), timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        _ = try JSONDecoder().decode(Profile.self, from: Data(buffer.readableBytesView))
    }

    func download() async throws -> Int {
        let response = try await client.execute(
            HTTPClientRequest(url: base.appendingPathComponent("large.bin").absoluteString), timeout: .seconds(60))
        return try await response.body.collect(upTo: downloadLimit).readableBytes
    }
}

/// `NetworkManager.send` over a transport: request building, the engine (plugins, retry, status checks),
/// decoding.
struct NetKitClient: BenchClient {
    let name: String
    let manager: NetworkManager

    init(name: String, baseURL: URL, transport: any HTTPTransport) {
        self.name = name
        manager = NetworkManager(baseURL: baseURL, transport: transport)
        manager.responseLimit = downloadLimit
    }

    func small() async throws {
        _ = try await manager.send(GetProfile(), accessToken: nil)
    }

    func download() async throws -> Int {
        try await manager.send(Download(), accessToken: nil).count
    }
}

/// A NetKit transport alone, without the engine: `send`, the body collected, `JSONDecoder`. Tells the transport's
/// share of NetKit's overhead from the engine's.
struct TransportOnlyClient: BenchClient {
    let name: String
    let transport: any HTTPTransport
    let base: URL

    func small() async throws {
        let response = try await transport.send(
            TransportRequest(head: try HTTPRequestHead(url: base.appendingPathComponent("small.json"))))
        _ = try JSONDecoder().decode(Profile.self, from: try await response.body.collect(upTo: 1 << 20))
    }

    func download() async throws -> Int {
        let response = try await transport.send(
            TransportRequest(head: try HTTPRequestHead(url: base.appendingPathComponent("large.bin"))))
        return try await response.body.collect(upTo: downloadLimit, expectedLength: response.declaredLength).count
    }
}

/// `HTTPClient.execute(request:delegate:)` with AsyncHTTPClient's `ResponseAccumulator`: the body collected on the
/// event loop, one resumption of the caller.
struct RawAsyncHTTPClientDelegate: BenchClient {
    let name = "AsyncHTTPClient (delegate)"
    let client: HTTPClient
    let base: URL

    func small() async throws {
        let request = try HTTPClient.Request(url: base.appendingPathComponent("small.json").absoluteString)
        let response = try await client.execute(request: request).get()
        _ = try JSONDecoder().decode(Profile.self, from: Data(response.body!.readableBytesView))
    }

    func download() async throws -> Int { 0 }
}

/// A NetKit transport alone, asked for the whole body as the engine asks (``TransportRequest/wholeBody``).
struct TransportWholeBodyClient: BenchClient {
    let name: String
    let transport: any HTTPTransport
    let base: URL

    func small() async throws {
        var request = TransportRequest(head: try HTTPRequestHead(url: base.appendingPathComponent("small.json")))
        request.wholeBody = WholeBodyLimits(success: 1 << 20, failure: 1 << 20)
        let response = try await transport.send(request)
        _ = try JSONDecoder().decode(Profile.self, from: response.body.bufferedData ?? Data())
    }

    func download() async throws -> Int { 0 }
}

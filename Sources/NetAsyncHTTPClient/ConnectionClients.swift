#if AsyncHTTPClient
import AsyncHTTPClient
import NetCore
import NetKitLock
import NIOCore

/// The clients of a transport that created its own: the first, made with the configuration it was given, and one
/// more for each proxy and HTTP version that requests asked for (AsyncHTTPClient sets both per client, not per
/// request), made on first use from the same configuration and shut down with the rest.
final class ConnectionClients: Sendable {
    /// What sets a client apart: the proxy AsyncHTTPClient connects through, and whether it speaks HTTP/1.1 only.
    struct Variant: Hashable, Sendable {
        var proxy: HTTPClient.Configuration.Proxy?
        var http1Only: Bool
    }

    /// The most clients one transport makes: every further combination is refused, so that requests naming a new
    /// proxy each time cannot open connection pools without end.
    static let limit = 16

    let base: OwnedClient
    private let configuration: HTTPClient.Configuration
    private let eventLoopGroup: any EventLoopGroup
    private let baseVariant: Variant
    private let others = Lock<[Variant: OwnedClient]>([:])

    init(configuration: HTTPClient.Configuration, eventLoopGroup: any EventLoopGroup) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.base = OwnedClient(HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration))
        self.baseVariant = Variant(proxy: configuration.proxy, http1Only: configuration.httpVersion == .http1Only)
    }

    /// The variant `connection` asks for, starting from the base configuration's.
    func variant(for connection: ConnectionSettings) -> Variant {
        var variant = baseVariant
        switch connection.proxy {
        case nil, .environment: break
        case .direct: variant.proxy = nil
        case .http(let server):
            variant.proxy = .server(
                host: server.host, port: server.port,
                authorization: server.credentials.map { .basic(username: $0.username, password: $0.password) })
        case .socks5(let server): variant.proxy = .socksServer(host: server.host, port: server.port)
        }
        if connection.httpVersion == .http1Only { variant.http1Only = true }
        return variant
    }

    /// Whether a client for `variant` exists or may be made.
    func canServe(_ variant: Variant) -> Bool {
        variant == baseVariant || others.withLock { $0[variant] != nil || $0.count < Self.limit - 1 }
    }

    /// The client for `variant`, made now if it is new; `nil` past ``limit``.
    func client(for variant: Variant) -> OwnedClient? {
        if variant == baseVariant { return base }
        return others.withLock { clients in
            if let client = clients[variant] { return client }
            guard clients.count < Self.limit - 1 else { return nil }
            var configuration = configuration
            configuration.proxy = variant.proxy
            configuration.httpVersion = variant.http1Only ? .http1Only : .automatic
            let client = OwnedClient(HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration))
            clients[variant] = client
            return client
        }
    }

    /// Shuts every client down.
    func shutdown() async throws {
        let clients = others.withLock { Array($0.values) }
        for client in clients { try await client.shutdown() }
        try await base.shutdown()
    }
}
#endif

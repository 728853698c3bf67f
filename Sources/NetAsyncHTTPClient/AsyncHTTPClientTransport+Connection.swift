#if AsyncHTTPClient
import AsyncHTTPClient
import NetCore
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Refuses, before anything is sent, what AsyncHTTPClient cannot apply: certificate pins (it has no hook into
    /// certificate verification), credentials for a SOCKS5 proxy, and a proxy or HTTP version for a client passed
    /// in (``init(client:)``), whose configuration is its own. Trusted roots, a client identity and a minimum TLS
    /// version apply per request; a proxy and an HTTP version through a client of their own, made on first use.
    public func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        func refuse(_ setting: UnsupportedConnectionSettingError.Setting, _ reason: String, _ alternative: String)
            -> UnsupportedConnectionSettingError
        {
            UnsupportedConnectionSettingError(
                setting, transport: "AsyncHTTPClientTransport", reason: reason, alternative: alternative)
        }
        if !connection.tls(for: head).pins.isEmpty {
            return refuse(
                .certificatePins,
                "AsyncHTTPClient offers no hook into certificate verification "
                    + "(swift-server/async-http-client#285), so a pinned key could not be checked",
                "Trust only your own CA with tls.trustedRoots = .only([ca]), which it applies per request; or pin "
                    + "on Apple platforms.")
        }
        if case .socks5(let server) = connection.proxy, server.credentials != nil {
            return refuse(
                .proxy, "AsyncHTTPClient's SOCKS5 proxy takes no user name or password (\(server) was asked for)",
                "Use a SOCKS5 proxy without authentication, or an HTTP proxy (CONNECT), which takes credentials.")
        }
        if case .environment = connection.proxy {
            return refuse(
                .proxy, "the proxy environment was not read for this request",
                "Send it through RequestExecutor or NetworkManager, which read it for each request and hop.")
        }
        guard connection.proxy != nil || connection.httpVersion != .automatic else { return nil }
        guard let clients else {
            return refuse(
                connection.proxy != nil ? .proxy : .httpVersion,
                "the HTTPClient given to AsyncHTTPClientTransport(client:) keeps its own configuration's proxy and "
                    + "HTTP version",
                "Set them in that client's HTTPClient.Configuration, or let the transport create its client "
                    + "(AsyncHTTPClientTransport(configuration:)), which makes one per proxy and HTTP version.")
        }
        return clients.canServe(clients.variant(for: connection)) ? nil : Self.limitRefusal(connection)
    }

    /// The client a request with `connection` goes through: the transport's own, or the one for its proxy and HTTP
    /// version; with the owner that keeps it alive while a body is read.
    func client(for connection: ConnectionSettings?) throws -> (HTTPClient, OwnedClient?) {
        guard let connection, connection.proxy != nil || connection.httpVersion != .automatic, let clients else {
            return (client, clients?.base)
        }
        guard let owned = clients.client(for: clients.variant(for: connection)) else {
            throw Self.limitRefusal(connection)
        }
        return (owned.client, owned)
    }

    private static func limitRefusal(_ connection: ConnectionSettings) -> UnsupportedConnectionSettingError {
        UnsupportedConnectionSettingError(
            connection.proxy != nil ? .proxy : .httpVersion, transport: "AsyncHTTPClientTransport",
            reason: "the transport already has \(ConnectionClients.limit) clients, one per proxy and HTTP version "
                + "asked for, and makes no more",
            alternative: "Use fewer different proxies, or a transport for each group of them.")
    }

    /// The TLS configuration of a request with `tls`: `nil` for the transport's defaults (the client's own
    /// configuration applies).
    /// - Throws: ``NetCore/ConnectionSettingError`` when the TLS library cannot read a certificate or the key.
    static func tlsConfiguration(for tls: TLSSettings) throws -> TLSConfiguration? {
        guard tls.trustedRoots != .system || tls.clientIdentity != nil || tls.minimumVersion != nil else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tls.trustedRoots {
        case .system: break
        case .systemAnd(let roots):
            configuration.additionalTrustRoots = [.certificates(try certificates(roots, setting: "trusted roots"))]
        case .only(let roots):
            configuration.trustRoots = .certificates(try certificates(roots, setting: "trusted roots"))
        }
        if let identity = tls.clientIdentity {
            configuration.certificateChain = try certificates(identity.certificateChain, setting: "client identity")
                .map { .certificate($0) }
            do {
                configuration.privateKey = .privateKey(
                    try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))
            } catch {
                throw ConnectionSettingError(
                    setting: "client identity", reason: "BoringSSL could not read the private key (\(error))")
            }
        }
        switch tls.minimumVersion {
        case nil: break
        case .tls12: configuration.minimumTLSVersion = .tlsv12
        case .tls13: configuration.minimumTLSVersion = .tlsv13
        }
        return configuration
    }

    private static func certificates(_ certificates: [TLSCertificate], setting: String) throws -> [NIOSSLCertificate] {
        try certificates.enumerated().map { index, certificate in
            do {
                return try NIOSSLCertificate(bytes: certificate.der, format: .der)
            } catch {
                throw ConnectionSettingError(
                    setting: setting, reason: "certificate \(index + 1) is not one BoringSSL can read (\(error))")
            }
        }
    }
}
#endif

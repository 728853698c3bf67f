/// Whose a request is, as the response cache and the coalescer see it: the transport it goes through, the cookie jar
/// that chose its cookies, the values of every header field that carries a credential as it goes out
/// (``TransportRequest/credentialFields``: `Authorization`, `Cookie`, an `X-API-Key`, whatever plugins and the
/// engine declare), and the connection settings that say as whom it is sent and whom it trusts (``connection``). A
/// stored response answers, and a call in flight is shared with, requests of its own partition only.
///
/// - The transport counts because it may add what the engine never sees (``TransportIdentity``).
/// - The jar counts beyond the `Cookie` header it sets: two empty jars send the same (no) `Cookie`, yet a response's
///   `Set-Cookie` reaches only the jar of the request that fetched it; a second jar answered from the cache would
///   never get its cookies.
/// - The connection counts because a TLS client certificate is a credential too, and because a response accepted
///   under weaker trust (other roots, no pin, an older TLS version, another proxy) must not answer a request that
///   demands more.
/// - Credential query items need nothing here: they are part of the target, which the cache and the coalescer key
///   on with its query as sent.
///
/// The values are kept as they are and compared exactly, not hashed. A keyed 64-bit hash (Swift's `Hasher`) would
/// leave a collision possible, and a collision here is one tenant getting another's response; a cryptographic hash
/// needs a dependency NetKit does not take. Kept only in memory, in the process that holds them in clear anyway
/// (the token provider, the jar, the request), for as long as the stored response (``ResponseCache/removeAll()``
/// forgets them) or the call in flight, they expose nothing more than is already there; its description and `dump`
/// show the names only.
package struct CredentialPartition: Sendable, Hashable {
    /// One header field that carries a credential, as the request sends it.
    package struct Credential: Sendable, Hashable {
        /// The name, ASCII-lowercased.
        package var name: String
        /// The value, exactly as sent.
        package var value: String
    }

    /// The transport.
    package let transport: TransportIdentity
    /// The number of the engine's cookie jar (``ObjectNumbers``); `nil` without one.
    package let cookieJar: UInt64?
    /// The credential fields, in the order the request sends them.
    package let credentials: [Credential]
    /// The connection settings of the request that bear on it, in a canonical byte form
    /// (``connectionBytes(_:for:)``); empty when they are all the transport's default.
    package let connection: [UInt8]

    /// The partition of a request with `head` whose fields `credentialFields` declares, sent with `connection`,
    /// through `transport` and the jar numbered `cookieJar`.
    package init(
        _ head: HTTPRequestHead, credentialFields: CredentialFields, connection: ConnectionSettings? = nil,
        transport: TransportIdentity, cookieJar: UInt64?
    ) {
        self.transport = transport
        self.cookieJar = cookieJar
        self.credentials = credentialFields.credentials(in: head.headerFields).map {
            Credential(name: HeaderValidation.lowercased($0.name), value: $0.value)
        }
        self.connection = Self.connectionBytes(connection, for: head)
    }

    /// The partition of `request` as it goes out through `transport`, its cookies chosen by `cookieJar`.
    package init(_ request: TransportRequest, transport: any HTTPTransport, cookieJar: CookieJar?) {
        self.init(
            request.head, credentialFields: request.credentialFields, connection: request.connection,
            transport: TransportIdentity(transport), cookieJar: cookieJar.map { ObjectNumbers.shared.number(of: $0) })
    }

    /// The bytes of the credential names and values and of the connection it holds (what a stored response counts
    /// for them).
    package var byteCount: Int {
        credentials.reduce(connection.count) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    /// The settings of `connection` that bear on a request for `head` and say as whom it is sent and whom it trusts,
    /// as bytes that two settings share only when those parts are equal: the client identity's certificates, the
    /// trusted roots, the minimum TLS version and the pins that apply to the host (none for a URL that is not
    /// `https`: ``ConnectionSettings/tls(for:)``), and the proxy (its kind, address and user, or the environment it is
    /// read from). Empty when every one is the transport's default. The HTTP version is left out: it changes how the
    /// response came, not for whom.
    ///
    /// Every part is a tag or a value preceded by its length (four bytes, big-endian), so that no two settings give
    /// the same bytes. The private key is not among them: the certificate says whose the identity is.
    package static func connectionBytes(_ connection: ConnectionSettings?, for head: HTTPRequestHead) -> [UInt8] {
        guard let connection else { return [] }
        let tls = connection.tls(for: head)
        guard !tls.isDefault || connection.proxy != nil else { return [] }
        var bytes: [UInt8] = []
        func part(_ value: some Collection<UInt8>) {
            let count = UInt32(truncatingIfNeeded: value.count)
            bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) }
            bytes += value
        }
        func part(_ text: String) { part(Array(text.utf8)) }
        func certificates(_ tag: String, _ list: [TLSCertificate]) {
            part(tag)
            part(String(list.count))
            for certificate in list { part(certificate.der) }
        }
        if let identity = tls.clientIdentity { certificates("client-identity", identity.certificateChain) }
        switch tls.trustedRoots {
        case .system: break
        case .systemAnd(let roots): certificates("roots-system-and", roots)
        case .only(let roots): certificates("roots-only", roots)
        }
        if let minimum = tls.minimumVersion {
            part("minimum-tls")
            part(minimum.rawValue)
        }
        for pin in tls.pins {
            part("pin")
            part(pin.host)
            part(String(pin.sha256.count))
            for hash in pin.sha256 { part(hash) }
        }
        func server(_ tag: String, _ server: ProxyServer) {
            part(tag)
            part(server.host)
            part(String(server.port))
            part(server.credentials?.username ?? "")
        }
        switch connection.proxy {
        case nil: break
        case .direct: part("proxy-direct")
        case .http(let proxy): server("proxy-http", proxy)
        case .socks5(let proxy): server("proxy-socks5", proxy)
        case .environment(let environment):
            part("proxy-environment")
            for value in [environment.httpProxy, environment.httpsProxy, environment.noProxy] {
                part(value == nil ? "unset" : "set")
                part(value ?? "")
            }
        }
        return bytes
    }
}

extension CredentialPartition: CustomStringConvertible, CustomReflectable {
    /// The credential names only: `CredentialPartition(authorization, x-api-key)`.
    package var description: String {
        "CredentialPartition(\(credentials.map(\.name).joined(separator: ", ")))"
    }

    /// The transport, the jar, the credential names and the size of the connection part, never a value.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "transport": transport, "cookieJar": cookieJar as Any, "credentials": credentials.map(\.name),
                "connection": "\(connection.count) bytes",
            ],
            displayStyle: .struct)
    }
}

extension CredentialPartition.Credential: CustomStringConvertible, CustomReflectable {
    /// The name and a redacted value: `authorization: <redacted>`.
    package var description: String { "\(name): <redacted>" }

    /// The name only.
    package var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .struct) }
}

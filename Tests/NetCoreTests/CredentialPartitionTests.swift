import Foundation
import Testing
import NetCore

/// Whose a request is, without I/O: the credential values, the transport and the cookie jar (``CredentialPartition``),
/// objects numbered so that a dead object's address never passes for it (``ObjectNumbers``), and transports told
/// apart by instance or, for values, by what they wrap or their type (``TransportIdentity``).
@Suite("Credential partitions, object numbers and transport identities")
struct CredentialPartitionTests {
    static func head(_ pairs: [(String, String)]) throws -> HTTPRequestHead {
        try HTTPRequestHead(
            method: .get, url: URL(string: "https://api.test/v1/items")!,
            headerFields: HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) }))
    }

    final class Session: Sendable {}

    struct WrappingTransport: IdentifiedTransport {
        let session: Session
        var identifyingObject: AnyObject? { session }
        func send(_ request: TransportRequest) async throws -> TransportResponse { throw CancellationError() }
    }

    @Test("every declared credential field's value counts; other fields do not; names in any case")
    func credentialValues() throws {
        let declared = CredentialFields.standard.union(.header("X-Tenant"))
        let partition = { (pairs: [(String, String)]) throws -> CredentialPartition in
            .of(try Self.head(pairs), credentialFields: declared)
        }
        #expect(try partition([("X-API-Key", "a")]) != partition([("X-API-Key", "b")]))
        #expect(try partition([("X-Tenant", "a")]) != partition([("X-Tenant", "b")]))
        #expect(try partition([("Cookie", "s=1")]) != partition([]))
        #expect(try partition([("Authorization", "Bearer a")]) != partition([("Authorization", "Bearer b")]))
        #expect(
            try partition([("x-tenant", "a"), ("Accept", "x")]) == partition([("X-Tenant", "a"), ("Accept", "y")]))
        #expect(
            try CredentialPartition.of(Self.head([("X-Tenant", "a")]))
                == .of(Self.head([("X-Tenant", "b")])), "an undeclared name that does not look secret is no credential")
        let counted = try partition([("X-API-Key", "abc"), ("Accept", "x")])
        #expect(counted.byteCount == "x-api-key".utf8.count + 3)
    }

    @Test("the transport and the cookie jar count")
    func transportAndJar() throws {
        let head = try Self.head([("Authorization", "Bearer a")])
        let other = TransportIdentity(IdentityOnlyTransport())
        #expect(CredentialPartition.of(head) != .of(head, transport: other))
        #expect(CredentialPartition.of(head, jar: 1) != .of(head, jar: 2))
        #expect(CredentialPartition.of(head, jar: 1) != .of(head))
        let jar = CookieJar()
        let request = TransportRequest(head: head)
        let transport = IdentityOnlyTransport()
        #expect(
            CredentialPartition(request, transport: transport, cookieJar: jar)
                == CredentialPartition(request, transport: transport, cookieJar: jar))
        #expect(
            CredentialPartition(request, transport: transport, cookieJar: jar)
                != CredentialPartition(request, transport: transport, cookieJar: CookieJar()))
    }

    @Test("the connection settings that say as whom a request goes and whom it trusts count; the rest does not")
    func connectionSettings() throws {
        let head = try Self.head([])
        let plain = try HTTPRequestHead(url: URL(string: "http://api.test/v1/items")!)
        func partition(_ settings: ConnectionSettings?, _ head: HTTPRequestHead) -> CredentialPartition {
            CredentialPartition(
                head, credentialFields: .standard, connection: settings, transport: fixtureTransport, cookieJar: nil)
        }
        func certificate(_ base64: String) throws -> TLSCertificate {
            try TLSCertificate(pem: "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n")
        }
        var identity = ConnectionSettings()
        identity.tls.clientIdentity = try ClientIdentity(
            certificateChainPEM: try certificate("AQID").pem,
            privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n")
        var roots = ConnectionSettings()
        roots.tls.trustedRoots = .only([try certificate("AQID")])
        var rootsAnd = ConnectionSettings()
        rootsAnd.tls.trustedRoots = .systemAnd([try certificate("AQID")])
        var minimum = ConnectionSettings()
        minimum.tls.minimumVersion = .tls13
        var proxy = ConnectionSettings()
        proxy.proxy = .http(ProxyServer(host: "proxy.test", port: 3128))
        var direct = ConnectionSettings()
        direct.proxy = .direct
        var http1 = ConnectionSettings()
        http1.httpVersion = .http1Only
        let bearing = [identity, roots, rootsAnd, minimum, proxy, direct].map { partition($0, head) }
        #expect(Set(bearing).count == bearing.count, "each setting is a partition of its own")
        #expect(!bearing.contains(partition(nil, head)))
        #expect(partition(identity, head) == partition(identity, head))
        #expect(partition(http1, head) == partition(nil, head), "the HTTP version is not whose the response is")
        #expect(partition(ConnectionSettings(), head) == partition(nil, head))
        #expect(partition(identity, plain) == partition(nil, plain), "no TLS on an http URL: its settings bear nothing")
        #expect(partition(proxy, plain) != partition(nil, plain), "the proxy bears on http too")
        let sealed = { (settings: ConnectionSettings?) in
            CachedResponse.Seal.partitionDigest(partition(settings, head), salt: [1, 2, 3])
        }
        #expect(
            sealed(identity) != sealed(nil) && sealed(identity) != sealed(roots) && sealed(identity) == sealed(identity)
        )
    }

    @Test("descriptions and dump name the credentials, never their values")
    func valuesHidden() throws {
        let partition = CredentialPartition.of(
            try Self.head([("Authorization", "Bearer s3cr3t"), ("X-API-Key", "k3y")]))
        var dumped = ""
        dump(partition, to: &dumped)
        dump(partition.credentials, to: &dumped)
        let texts = [partition.description, String(describing: partition.credentials), dumped]
        for text in texts {
            #expect(!text.contains("s3cr3t") && !text.contains("k3y"), "\(text)")
        }
        #expect(partition.description == "CredentialPartition(authorization, x-api-key)")
    }

    @Test("an object keeps its number while it lives; a newcomer at a dead object's address gets a new one")
    func objectNumbers() {
        let numbers = ObjectNumbers()
        let first = Session()
        let second = Session()
        #expect(numbers.number(of: first) == numbers.number(of: first))
        #expect(numbers.number(of: first) != numbers.number(of: second))
        var numbered = Set<UInt64>()
        // The allocator hands a freed block of the same size straight back (glibc does, almost every time): the
        // newcomer then has the dead object's ObjectIdentifier, but never its number.
        for _ in 0..<100 {
            var gone: Session? = Session()
            numbered.insert(numbers.number(of: gone!))
            gone = nil
            let newcomer = Session()
            let number = numbers.number(of: newcomer)
            #expect(!numbered.contains(number))
            numbered.insert(number)
        }
    }

    @Test("the table sweeps dead objects' entries: it stays within twice the live objects (at least 64)")
    func objectNumbersBounded() {
        let numbers = ObjectNumbers()
        let kept = (0..<10).map { _ in Session() }
        for object in kept { _ = numbers.number(of: object) }
        for _ in 0..<10_000 { _ = numbers.number(of: Session()) }
        #expect(numbers.count <= 64)
        for object in kept { _ = numbers.number(of: object) }
        #expect(numbers.count <= 64)
    }

    @Test("transports: an object by instance, a wrapper by what it wraps, any other value by its type")
    func transportIdentity() {
        let stub = IdentityOnlyTransport()
        #expect(TransportIdentity(stub) == TransportIdentity(stub))
        #expect(TransportIdentity(stub) != TransportIdentity(IdentityOnlyTransport()))
        #expect(TransportIdentity(ValueTransport()) == TransportIdentity(ValueTransport()))
        #expect(TransportIdentity(ValueTransport()) != TransportIdentity(stub))
        let session = Session()
        #expect(
            TransportIdentity(WrappingTransport(session: session))
                == TransportIdentity(WrappingTransport(session: session)))
        #expect(
            TransportIdentity(WrappingTransport(session: session))
                != TransportIdentity(WrappingTransport(session: Session())))
    }
}

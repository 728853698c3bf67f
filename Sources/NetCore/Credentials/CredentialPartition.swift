/// Whose a request is, as the response cache and the coalescer see it: the transport it goes through, the cookie jar
/// that chose its cookies, and the values of every header field that carries a credential as it goes out
/// (``TransportRequest/credentialFields``: `Authorization`, `Cookie`, an `X-API-Key`, whatever plugins and the
/// engine declare). A stored response answers, and a call in flight is shared with, requests of its own partition
/// only.
///
/// - The transport counts because it may add what the engine never sees (``TransportIdentity``).
/// - The jar counts beyond the `Cookie` header it sets: two empty jars send the same (no) `Cookie`, yet a response's
///   `Set-Cookie` reaches only the jar of the request that fetched it; a second jar answered from the cache would
///   never get its cookies.
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

    /// The partition of a request with `head` whose fields `credentialFields` declares, through `transport` and
    /// the jar numbered `cookieJar`.
    package init(
        _ head: HTTPRequestHead, credentialFields: CredentialFields, transport: TransportIdentity, cookieJar: UInt64?
    ) {
        self.transport = transport
        self.cookieJar = cookieJar
        self.credentials = credentialFields.credentials(in: head.headerFields).map {
            Credential(name: HeaderValidation.lowercased($0.name), value: $0.value)
        }
    }

    /// The partition of `request` as it goes out through `transport`, its cookies chosen by `cookieJar`.
    package init(_ request: TransportRequest, transport: any HTTPTransport, cookieJar: CookieJar?) {
        self.init(
            request.head, credentialFields: request.credentialFields, transport: TransportIdentity(transport),
            cookieJar: cookieJar.map { ObjectNumbers.shared.number(of: $0) })
    }

    /// The bytes of the credential names and values it holds (what a stored response counts for them).
    package var byteCount: Int {
        credentials.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }
}

extension CredentialPartition: CustomStringConvertible, CustomReflectable {
    /// The credential names only: `CredentialPartition(authorization, x-api-key)`.
    package var description: String {
        "CredentialPartition(\(credentials.map(\.name).joined(separator: ", ")))"
    }

    /// The transport, the jar and the credential names, never a value.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: ["transport": transport, "cookieJar": cookieJar as Any, "credentials": credentials.map(\.name)],
            displayStyle: .struct)
    }
}

extension CredentialPartition.Credential: CustomStringConvertible, CustomReflectable {
    /// The name and a redacted value: `authorization: <redacted>`.
    package var description: String { "\(name): <redacted>" }

    /// The name only.
    package var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .struct) }
}

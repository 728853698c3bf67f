import Foundation
import NetCore

/// A transport that is an object and never answers: an identity for the partitions of tests without I/O.
final class IdentityOnlyTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw CancellationError()
    }
}

/// A transport that is a value and never answers.
struct ValueTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw CancellationError()
    }
}

let fixtureTransport = TransportIdentity(IdentityOnlyTransport())

extension CredentialPartition {
    /// The partition of `head` with the standard credential fields, through one fixed transport and `jar`.
    static func of(
        _ head: HTTPRequestHead, credentialFields: CredentialFields = .standard,
        transport: TransportIdentity = fixtureTransport, jar: UInt64? = nil
    ) -> CredentialPartition {
        CredentialPartition(head, credentialFields: credentialFields, transport: transport, cookieJar: jar)
    }
}

extension ResponseCache {
    /// The stored response for `request` in the partition its own fields make.
    func response(for request: HTTPRequestHead) -> CachedResponse? {
        response(for: request, in: .of(request))
    }
}

import NetKitDigest

extension CachedResponse {
    /// Whose request a stored response answered, and what that request's fields named by `Vary` held: kept as they
    /// are while the response lives in memory, and as salted SHA-256 digests once it is written as bytes
    /// (``ResponseCacheEntry/encoded()``), so that no credential and no request value reaches a disk in clear.
    ///
    /// A process's objects do not outlive it, so the digest covers what the next launch can tell again: the
    /// transport's type (not which instance), whether a cookie jar chose the cookies (not which one), and every
    /// credential field's name and value. The digests are salted with 16 random bytes per entry: two entries of one
    /// caller share no digest, and no table computed in advance helps to reverse one.
    package enum Owner: Sendable {
        /// In memory: the partition and the values, compared exactly.
        case exact(CredentialPartition, varying: [VaryingField])
        /// Read back from bytes: digests, compared with the digests of the request asking.
        case sealed(Seal)

        /// Whether a request with `request`'s head of `partition` is the same caller's, with the same values of
        /// every field `Vary` names (or none on both).
        func matches(_ request: HTTPRequestHead, in partition: CredentialPartition) -> Bool {
            switch self {
            case .exact(let own, let varying):
                guard partition == own else { return false }
                return varying.allSatisfy { CachedResponse.normalized(request.headerFields, $0.name) == $0.value }
            case .sealed(let seal):
                guard Seal.partitionDigest(partition, salt: seal.salt) == seal.partition else { return false }
                return seal.varying.allSatisfy { field in
                    let value = CachedResponse.normalized(request.headerFields, field.name)
                    return value.map { Seal.valueDigest(name: field.name, value: $0, salt: seal.salt) } == field.digest
                }
            }
        }

        /// The owner as bytes may carry it: digests under a new salt (a sealed owner stays as it is).
        var sealed: Seal {
            switch self {
            case .sealed(let seal):
                return seal
            case .exact(let partition, let varying):
                var generator = SystemRandomNumberGenerator()
                let salt = (0..<Seal.saltCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
                return Seal(
                    salt: salt, partition: Seal.partitionDigest(partition, salt: salt),
                    varying: varying.map { field in
                        Seal.Field(
                            name: field.name,
                            digest: field.value.map { Seal.valueDigest(name: field.name, value: $0, salt: salt) })
                    })
            }
        }

        /// The bytes it counts for in a cache's bound.
        var byteCount: Int {
            switch self {
            case .exact(let partition, let varying):
                partition.byteCount + varying.reduce(0) { $0 + $1.name.utf8.count + ($1.value?.utf8.count ?? 0) }
            case .sealed(let seal):
                seal.salt.count + seal.partition.count
                    + seal.varying.reduce(0) { $0 + $1.name.utf8.count + ($1.digest?.count ?? 0) }
            }
        }
    }

    /// An owner as digests: what ``Owner/sealed`` holds.
    package struct Seal: Sendable, Equatable {
        /// One field a `Vary` names, with the digest of the request's value (`nil` when it had none).
        package struct Field: Sendable, Equatable {
            /// The field name, lowercased.
            package var name: String
            /// The salted digest of the normalised value, or `nil` when the request had no such field.
            package var digest: [UInt8]?
        }

        /// The number of random bytes that salt each entry's digests.
        package static let saltCount = 16

        /// The random bytes that salt this entry's digests.
        package var salt: [UInt8]
        /// The digest of the partition (``partitionDigest(_:salt:)``).
        package var partition: [UInt8]
        /// The fields `Vary` names, in order.
        package var varying: [Field]

        /// The salted digest of what a later launch can tell again of `partition`: the transport's type, whether a
        /// cookie jar was used, each credential's name and value, every part ended by a NUL (which no field name or
        /// value may hold, so that no two partitions give the same bytes), and the connection's part. A partition
        /// whose connection is the transport's default gives the digest it gave before connections counted (version
        /// 1), so entries stored then still answer; one with connection settings is version 2, which counts the
        /// credentials before the connection's bytes.
        package static func partitionDigest(_ partition: CredentialPartition, salt: [UInt8]) -> [UInt8] {
            let withConnection = !partition.connection.isEmpty
            var hash = SHA256()
            hash.update(salt)
            hash.update(Array("netkit-cache-partition-\(withConnection ? 2 : 1)\0".utf8))
            hash.update(Array(partition.transport.typeName.utf8) + [0])
            hash.update(Array((partition.cookieJar == nil ? "no-jar" : "jar").utf8) + [0])
            if withConnection { hash.update(Array("\(partition.credentials.count)".utf8) + [0]) }
            for credential in partition.credentials {
                hash.update(Array(credential.name.utf8) + [0])
                hash.update(Array(credential.value.utf8) + [0])
            }
            if withConnection { hash.update(partition.connection) }
            return hash.finalize()
        }

        /// The salted digest of a request field's normalised value.
        package static func valueDigest(name: String, value: String, salt: [UInt8]) -> [UInt8] {
            var hash = SHA256()
            hash.update(salt)
            hash.update(Array("netkit-cache-vary-1\0".utf8))
            hash.update(Array(name.utf8) + [0])
            hash.update(Array(value.utf8))
            return hash.finalize()
        }
    }
}

import NetKitDigest

/// Where a stored response is filed: the method and the target. Which of the responses filed there answers a
/// request is the ``CachedResponse``'s to say (its ``CredentialPartition`` and `Vary`). The partition is not part of
/// the key, so that a method that is not safe invalidates a target for everyone (RFC 9111 §4.4).
package struct CacheKey: Sendable, Hashable {
    /// The method (`GET`).
    package var method: HTTPRequestMethod
    /// The scheme, lowercased.
    package var scheme: String
    /// The host, lowercased, and the port when it is not the scheme's default (`api.test:443` is `api.test`).
    package var authority: String
    /// The path and query as sent.
    package var path: String

    /// The key of `head`'s target.
    package init(_ head: HTTPRequestHead, method: HTTPRequestMethod? = nil) {
        self.method = method ?? head.method
        self.scheme = head.scheme.lowercased()
        if head.port == nil {
            self.authority = head.authority.lowercased()
        } else {
            // The origin's description names the port only when it is not the scheme's default.
            let origin = HTTPOrigin(head)
            self.authority = String(origin.description.dropFirst(origin.scheme.utf8.count + 3))
        }
        self.path = head.path
    }

    /// What stores file the key's entries under (``ResponseCacheEntry/key``): the SHA-256 of the method and the
    /// target in lowercase hexadecimal, so that no store keeps the URL, whose query may hold a secret.
    package var digest: String {
        SHA256.hex(SHA256.hash(Array("\(method.rawValue) \(scheme)://\(authority)\(path)".utf8)))
    }
}

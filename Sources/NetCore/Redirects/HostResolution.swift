#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Names to addresses through the system resolver, for ``RedirectPolicy/refusesPrivateAddresses``.
package enum HostResolution {
    /// Whether `host` is, or resolves to, an address that is not on the public internet: an IP literal judged by
    /// ``IPAddress/isPrivate``, `localhost` and `*.localhost` (RFC 6761), and any name one of whose addresses is
    /// private. A name that does not resolve is not judged (the transport will fail to reach it).
    package static func isPrivate(_ host: String) async -> Bool {
        if let address = IPAddress(host: host) { return address.isPrivate }
        var name = HeaderValidation.lowercased(host)
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        return await addresses(of: name).contains { $0.isPrivate }
    }

    /// Every address `name` resolves to; `getaddrinfo` blocks, so it runs on a Dispatch thread, never on the
    /// cooperative pool.
    package static func addresses(of name: String) async -> [IPAddress] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: resolve(name)) }
        }
    }

    private static func resolve(_ name: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        // getaddrinfo's list is finite; the bound keeps a broken one from looping.
        while let current = entry, result.count < 256 {
            if let address = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var raw = pointer.pointee.sin_addr
                        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                        if let ip = IPAddress(bytes: bytes) { result.append(ip) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var raw = pointer.pointee.sin6_addr
                        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                        if let ip = IPAddress(bytes: bytes) { result.append(ip) }
                    }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        return result
    }
}

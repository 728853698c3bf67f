/// An IPv4 or IPv6 address as bytes, read from a URL's host the way resolvers read it, and whether it is one a
/// redirect must not reach when ``RedirectPolicy/refusesPrivateAddresses`` is on.
package struct IPAddress: Sendable, Hashable {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address a host names literally: IPv6 in brackets or not, and IPv4 in every form `inet_aton` and the
    /// WHATWG URL standard accept (`127.0.0.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`), which libcurl and
    /// `getaddrinfo` would connect to; `nil` for a name.
    package init?(host: some StringProtocol) {
        var host = Substring(host)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.contains(":") {
            guard let bytes = Self.ipv6(host) else { return nil }
            self.bytes = bytes
        } else {
            // A trailing dot is allowed on a name and ignored by resolvers.
            if host.hasSuffix(".") { host = host.dropLast() }
            guard let bytes = Self.ipv4(host) else { return nil }
            self.bytes = bytes
        }
    }

    /// Whether the address is loopback, private, link-local, shared (CGNAT), unique-local, multicast, reserved or
    /// unspecified: anywhere but the public internet. An IPv6 address that carries an IPv4 one (mapped,
    /// compatible, NAT64, 6to4) is judged by the IPv4 address.
    package var isPrivate: Bool {
        if bytes.count == 4 { return Self.isPrivateIPv4(bytes) }
        if let embedded = embeddedIPv4 { return Self.isPrivateIPv4(embedded) }
        let b = bytes
        if b.allSatisfy({ $0 == 0 }) { return true }  // ::
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return true }  // ::1
        if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return true }  // fe80::/10 link-local
        if b[0] == 0xfe && (b[1] & 0xc0) == 0xc0 { return true }  // fec0::/10 site-local (deprecated)
        if (b[0] & 0xfe) == 0xfc { return true }  // fc00::/7 unique-local
        if b[0] == 0xff { return true }  // multicast
        if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return true }  // 100::/64 discard
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return true }  // 2001:db8::/32 documentation
        return false
    }

    /// The IPv4 address inside an IPv6 one that carries it: `::ffff:a.b.c.d`, `::a.b.c.d`, `64:ff9b::a.b.c.d`,
    /// `2002:aabb:ccdd::`.
    private var embeddedIPv4: [UInt8]? {
        let b = bytes
        guard b.count == 16 else { return nil }
        if b[0..<10].allSatisfy({ $0 == 0 }) && ((b[10] == 0xff && b[11] == 0xff) || (b[10] == 0 && b[11] == 0)) {
            return Array(b[12..<16])
        }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4..<12].allSatisfy({ $0 == 0 }) {
            return Array(b[12..<16])
        }
        if b[0] == 0x20 && b[1] == 0x02 { return Array(b[2..<6]) }
        return nil
    }

    private static func isPrivateIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): true  // this network, private, loopback
        case (100, 64...127): true  // shared address space (CGNAT)
        case (169, 254): true  // link-local, the cloud metadata address among them
        case (172, 16...31), (192, 168): true  // private
        case (192, 0) where b[2] == 0: true  // IETF protocol assignments
        case (198, 18...19): true  // benchmarking
        case (224...255, _): true  // multicast, reserved, broadcast
        default: false
        }
    }

    /// IPv4 as `inet_aton` reads it: one to four parts, each decimal, octal (leading `0`) or hexadecimal (`0x`),
    /// the last filling the remaining bytes.
    private static func ipv4(_ host: Substring) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = number(part) else { return nil }
            numbers.append(number)
        }
        var value: UInt64 = 0
        for (index, number) in numbers.enumerated() {
            if index < numbers.count - 1 {
                guard number <= 255 else { return nil }
                value = value << 8 | number
            } else {
                let remaining = 4 - index
                guard number < (UInt64(1) << (8 * UInt64(remaining))) else { return nil }
                value = value << (8 * UInt64(remaining)) | number
            }
        }
        return [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    private static func number(_ part: Substring) -> UInt64? {
        let utf8 = Array(part.utf8)
        guard !utf8.isEmpty, utf8.count <= 32 else { return nil }
        var radix: UInt64 = 10
        var digits = utf8[...]
        if utf8.count >= 2, utf8[0] == UInt8(ascii: "0"), utf8[1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            digits = utf8[2...]
            if digits.isEmpty { return 0 }
        } else if utf8.count >= 2, utf8[0] == UInt8(ascii: "0") {
            radix = 8
            digits = utf8[1...]
        }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = value * radix + digit
            guard value <= UInt64(UInt32.max) else { return nil }
        }
        return value
    }

    /// IPv6 text (RFC 4291 §2.2, a zone `%…` ignored): groups of up to four hex digits, one `::`, an IPv4 tail.
    private static func ipv6(_ text: Substring) -> [UInt8]? {
        var text = text
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
        guard text.utf8.count <= 64 else { return nil }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = ipv4Strict(piece) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.utf8.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// Dotted-decimal IPv4 only, as an IPv6 address's tail must be.
    private static func ipv4Strict(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }
}

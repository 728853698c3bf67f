#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of a `NO_PROXY` list, read as Go's `golang.org/x/net/http/httpproxy` reads it, so that a list written
/// for Go programs exempts the same hosts here, down to the odd cases (an entry `[::1]` without a port is a name that
/// never matches; `010.0.0.1` is a name, not an address).
///
/// Addresses are parsed as Go's `net/netip` parses them: dotted-decimal IPv4 without leading zeros and standard IPv6,
/// nothing else. ``IPAddress`` is deliberately not used: it reads hosts the way resolvers do (`0x7f.1`, `127.1`,
/// `1.2.3.4::`, `+1::`, an empty zone), which would make entries match where Go's do not.
enum NoProxyRule: Sendable, Hashable {
    /// `*`: no request uses a proxy.
    case everything
    /// `10.0.0.0/8`, `2001:db8::/32`: an IP host inside the range, on any port. `network` is 4 bytes when Go's
    /// matching compares IPv4 (IPv4 ranges, and IPv6 ranges inside `::ffff:0:0/96`), else 16.
    case range(network: [UInt8], prefixLength: Int)
    /// `192.168.1.1`, `192.168.1.1:8080`, `[2001:db8::1]:443`: that IP host (an IPv4-mapped IPv6 address equal to
    /// its IPv4 one), on that port when one is given.
    case address([UInt8], port: String?)
    /// `example.com`, `.example.com` or `*.example.com`, each with an optional `:port`. `suffix` starts with a dot:
    /// every sub-domain ends with it; `matchesName` says whether the name without the dot matches too (it does for
    /// `example.com`, not for `.example.com`). Never matches an IP host.
    case domain(suffix: String, matchesName: Bool, port: String?)

    /// The rules of a whole `NO_PROXY` value: comma-separated, trimmed, lower-cased, empty and host-less entries
    /// skipped (Go ignores what it cannot read rather than failing), and just ``everything`` once a `*` appears.
    static func rules(from list: String) -> [NoProxyRule] {
        var rules: [NoProxyRule] = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = trimmingSpace(part).lowercased()
            if entry.isEmpty { continue }
            if entry == "*" { return [.everything] }
            if let rule = NoProxyRule(entry: entry) { rules.append(rule) }
        }
        return rules
    }

    /// One trimmed, lower-cased entry; `nil` for one with an empty host (`:80`).
    init?(entry: String) {
        if let range = Self.range(entry) {
            self = range
            return
        }
        var host = entry
        var port: String?
        if let split = Self.splitHostPort(entry) {
            guard !split.host.isEmpty else { return nil }
            host = split.host
            // "example.com:" has an empty port, which Go compares as "no port given".
            port = split.port.isEmpty ? nil : split.port
        }
        if let address = Self.address(host, allowsZone: false) {
            self = .address(address, port: port)
            return
        }
        if host.hasPrefix("*.") { host.removeFirst() }
        let matchesName = !host.hasPrefix(".")
        self = .domain(suffix: Self.asciiHost(matchesName ? "." + host : host), matchesName: matchesName, port: port)
    }

    /// Whether a request to `name` (lower-cased, A-labels), whose address is `address` when the name is an IP
    /// (``address(_:allowsZone:)``), on `port` (its decimal text, the scheme's default when the URL gives none)
    /// goes direct.
    func matches(name: String, address: [UInt8]?, port: String) -> Bool {
        switch self {
        case .everything:
            return true
        case .range(let network, let prefixLength):
            guard let address, address.count == network.count else { return false }
            return Self.prefix(of: address, prefixLength) == Self.prefix(of: network, prefixLength)
        case .address(let entry, let entryPort):
            return address == entry && (entryPort == nil || entryPort == port)
        case .domain(let suffix, let matchesName, let entryPort):
            guard address == nil else { return false }
            let name = Array(name.utf8)
            let suffix = Array(suffix.utf8)
            let matched = name.count >= suffix.count && name[(name.count - suffix.count)...].elementsEqual(suffix)
            guard matched || (matchesName && name.elementsEqual(suffix.dropFirst())) else { return false }
            return entryPort == nil || entryPort == port
        }
    }

    /// Whether bytes from ``address(_:allowsZone:)`` are a loopback address: `127.0.0.0/8` (also IPv4-mapped) or `::1`.
    static func isLoopback(_ address: [UInt8]) -> Bool {
        address.count == 4 ? address[0] == 127 : address == Array(repeating: 0, count: 15) + [1]
    }

    // MARK: Go's parsing

    /// `text` without leading and trailing white space (Unicode's White_Space, which is what Go's
    /// `strings.TrimSpace` removes), without reaching for Foundation's `CharacterSet`.
    static func trimmingSpace(_ text: some StringProtocol) -> Substring {
        let scalars = Substring(text).unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return Substring(scalars[first...last])
    }

    /// The address `text` is, as Go's `netip.ParseAddr` reads it (a zone after `%` allowed only for request hosts,
    /// as `net.ParseIP` refuses it for entries), as 4 bytes for IPv4 and IPv4-mapped IPv6 and 16 for the rest: the
    /// form in which Go's `net.IP.Equal` and `IPNet.Contains` compare.
    static func address(_ text: String, allowsZone: Bool) -> [UInt8]? {
        guard let parsed = parse(Array(text.utf8)[...]), allowsZone || !parsed.hasZone else { return nil }
        return parsed.isIPv4 ? Array(parsed.bytes[12...]) : normalized(parsed.bytes)
    }

    /// `name` with every label that is not ASCII turned into its A-label (`xn--` and punycode), as Go passes entries
    /// and request hosts through IDNA so that `示例.com` and `xn--fsq092h.com` match each other; left as it is when
    /// the conversion fails, as Go leaves it. Of UTS 46's mapping only lower-casing is done (no NFC, no full-width
    /// forms, no `。` as a dot): enough for names as people write them in `NO_PROXY`, with no Unicode tables to carry.
    static func asciiHost(_ name: String) -> String {
        guard !name.utf8.allSatisfy({ $0 < 0x80 }) else { return name }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            if label.utf8.allSatisfy({ $0 < 0x80 }) {
                labels.append(label.lowercased())
            } else {
                guard let encoded = punycode(label.lowercased()) else { return name }
                labels.append("xn--" + encoded)
            }
        }
        return labels.joined(separator: ".")
    }

    /// `10.0.0.0/8` as Go's `net.ParseCIDR` reads it (no zone; a prefix length of decimal digits, leading zeros
    /// allowed), masked, and in the form `IPNet.Contains` compares: an IPv4-mapped network as IPv4.
    private static func range(_ entry: String) -> NoProxyRule? {
        let bytes = Array(entry.utf8)
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")), let parsed = parse(bytes[..<slash]),
            !parsed.hasZone
        else { return nil }
        let digits = bytes[(slash + 1)...]
        let bits = parsed.isIPv4 ? 32 : 128
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var length = 0
        for digit in digits {
            length = length * 10 + Int(digit - UInt8(ascii: "0"))
            guard length <= bits else { return nil }
        }
        // An IPv4 range masks the IPv4-mapped form's last 32 bits.
        let length16 = parsed.isIPv4 ? 96 + length : length
        let masked = prefix(of: parsed.bytes, length16)
        if normalized(masked).count == 4 {
            return .range(network: Array(masked[12...]), prefixLength: length16 - 96)
        }
        return .range(network: masked, prefixLength: length16)
    }

    /// `bytes` with every bit after the first `length` cleared.
    private static func prefix(of bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xff >> UInt8(kept))
        }
    }

    /// 16 bytes as Go's `net.IP.To4` sees them: the IPv4 address when they are `::ffff:a.b.c.d`.
    private static func normalized(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return bytes
        }
        return Array(bytes[12...])
    }

    /// Go's `net.SplitHostPort`: the port is what follows the last `:`, a host in brackets loses them, and a host
    /// with a `:` outside brackets (a bare IPv6 address) is not split. The port is not checked, as Go does not check
    /// it: a port that is not digits never equals a request's.
    private static func splitHostPort(_ text: String) -> (host: String, port: String)? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let host: ArraySlice<UInt8>
        var hostStart = 0
        var hostEnd = 0
        if bytes[0] == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close + 1 == colon else { return nil }
            host = bytes[1..<close]
            hostStart = 1
            hostEnd = close + 1
        } else {
            host = bytes[..<colon]
            if host.contains(UInt8(ascii: ":")) { return nil }
        }
        if bytes[hostStart...].contains(UInt8(ascii: "[")) || bytes[hostEnd...].contains(UInt8(ascii: "]")) {
            return nil
        }
        return (String(decoding: host, as: UTF8.self), String(decoding: bytes[(colon + 1)...], as: UTF8.self))
    }

    /// Go's `netip.ParseAddr`: the first `.`, `:` or `%` decides between IPv4, IPv6 and nothing. IPv4 comes back
    /// IPv4-mapped in 16 bytes.
    private static func parse(_ text: ArraySlice<UInt8>) -> (bytes: [UInt8], isIPv4: Bool, hasZone: Bool)? {
        for byte in text {
            switch byte {
            case UInt8(ascii: "."):
                return ipv4(text).map { (Array(repeating: 0, count: 10) + [0xff, 0xff] + $0, true, false) }
            case UInt8(ascii: ":"):
                return ipv6(text)
            case UInt8(ascii: "%"):
                return nil
            default:
                continue
            }
        }
        return nil
    }

    /// Four decimal fields from 0 to 255, none with a leading zero.
    private static func ipv4(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let fields = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard fields.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for field in fields {
            guard (1...3).contains(field.count),
                field.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                field.count == 1 || field.first != UInt8(ascii: "0")
            else { return nil }
            let value = field.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard value <= 255 else { return nil }
            bytes.append(UInt8(value))
        }
        return bytes
    }

    /// Groups of one to four hex digits, at most one `::` standing for at least one zero group, an IPv4 address in
    /// place of the last two groups, and a non-empty zone after `%`.
    private static func ipv6(_ text: ArraySlice<UInt8>) -> (bytes: [UInt8], isIPv4: Bool, hasZone: Bool)? {
        var rest = text
        var hasZone = false
        if let percent = text.firstIndex(of: UInt8(ascii: "%")) {
            guard percent + 1 < text.endIndex else { return nil }
            rest = text[..<percent]
            hasZone = true
        }
        var bytes: [UInt8] = []
        var ellipsis: Int?
        if rest.starts(with: "::".utf8) {
            ellipsis = 0
            rest = rest.dropFirst(2)
        }
        while !rest.isEmpty && bytes.count < 16 {
            let digits = rest.prefix { hexValue($0) != nil }
            guard (1...4).contains(digits.count) else { return nil }
            if digits.endIndex < rest.endIndex && rest[digits.endIndex] == UInt8(ascii: ".") {
                // An IPv4 tail must end the address, either after six groups or after a "::".
                guard ellipsis != nil || bytes.count == 12, bytes.count + 4 <= 16, let tail = ipv4(rest) else {
                    return nil
                }
                bytes += tail
                rest = rest[rest.endIndex...]
                break
            }
            let value = digits.reduce(0) { $0 << 4 | Int(hexValue($1) ?? 0) }
            bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            rest = rest[digits.endIndex...]
            if rest.isEmpty { break }
            guard rest.first == UInt8(ascii: ":"), rest.count > 1 else { return nil }
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: ":") {
                guard ellipsis == nil else { return nil }
                ellipsis = bytes.count
                rest = rest.dropFirst()
            }
        }
        guard rest.isEmpty else { return nil }
        if let ellipsis {
            guard bytes.count < 16 else { return nil }
            bytes.insert(contentsOf: repeatElement(0, count: 16 - bytes.count), at: ellipsis)
        } else if bytes.count != 16 {
            return nil
        }
        return (bytes, false, hasZone)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// RFC 3492 punycode of one label, or `nil` if the arithmetic would overflow.
    private static func punycode(_ label: String) -> String? {
        let base = 36
        let (tMin, tMax, skew, damp) = (1, 26, 38, 700)
        let scalars = label.unicodeScalars.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(label.unicodeScalars.filter(\.isASCII)))
        let basicCount = scalars.filter { $0 < 0x80 }.count
        if basicCount > 0 { output += "-" }
        func digit(_ value: Int) -> Character {
            Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value + 22)))
        }
        func adapt(_ delta: Int, _ points: Int, _ first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / points
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
        var (n, delta, bias, handled) = (0x80, 0, 72, basicCount)
        while handled < scalars.count {
            let next = scalars.filter { $0 >= n }.min() ?? n
            let (step, stepOverflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            let (sum, sumOverflow) = delta.addingReportingOverflow(step)
            guard !stepOverflow, !sumOverflow else { return nil }
            delta = sum
            n = next
            for scalar in scalars {
                if scalar < n { delta += 1 }
                guard scalar == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }
}

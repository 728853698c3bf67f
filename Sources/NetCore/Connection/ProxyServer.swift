#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A proxy's address and, when it asks for them, the credentials to give it.
///
/// Its `description`, `String(reflecting:)` and `dump` never show the password: `proxy.example:3128 (user alice)`.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The proxy's host name or IP address; an IPv6 address without brackets (`2001:db8::1`).
    public var host: String
    /// The proxy's TCP port.
    public var port: Int
    /// What to authenticate to the proxy with, or `nil` when it asks for nothing.
    public var credentials: ProxyCredentials?

    /// A proxy at `host` and `port`, taken as given: ``settings(fromURL:)`` is the one that checks text.
    public init(host: String, port: Int, credentials: ProxyCredentials? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Reads a proxy URL the way the `HTTP_PROXY` family of variables is written, as Go's net/http reads it.
    ///
    /// `http://user:pass@proxy.example:3128` gives ``ProxySettings/http(_:)``, `socks5://proxy.example:1080` (or
    /// `socks5h://`) ``ProxySettings/socks5(_:)``. Text without a scheme (`proxy.example:3128`) is an HTTP proxy, as
    /// Go and curl take it. A missing port is 80 for `http` and 1080 for `socks5`, Go's defaults. The user name and
    /// password are percent-decoded into ``credentials``. A path, query or fragment after the address is ignored, as
    /// Go ignores it. Surrounding white space is ignored.
    ///
    /// - Throws: ``ConnectionSettingError`` (setting "proxy URL") for an `https://` proxy (that needs TLS to the proxy
    ///   itself, which NetKit does not do; an `http://` proxy still carries https requests end-to-end encrypted
    ///   through a CONNECT tunnel), another scheme, no host, a port that is not 1 to 65535, or user info that is
    ///   not valid percent-encoded text. The reason never quotes the password.
    public static func settings(fromURL text: String) throws -> ProxySettings {
        try settings(fromURL: text, setting: "proxy URL")
    }

    /// `proxy.example:3128`, `[2001:db8::1]:3128`, with ` (user alice)` when there are credentials.
    public var description: String {
        let address = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard let credentials else { return address }
        return address + " (user \(credentials.username))"
    }

    /// Host, port and credentials, the credentials' own mirror hiding the password.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["host": host, "port": port, "credentials": credentials as Any], displayStyle: .struct)
    }

    // MARK: Reading a proxy URL

    /// ``settings(fromURL:)`` with errors naming `setting`, so that the environment's errors name the variable.
    static func settings(fromURL text: String, setting: String) throws(ConnectionSettingError) -> ProxySettings {
        func invalid(_ reason: String) -> ConnectionSettingError {
            ConnectionSettingError(setting: setting, reason: reason)
        }
        let bytes = Array(NoProxyRule.trimmingSpace(text).utf8)
        guard !bytes.isEmpty else { throw invalid("it is empty; give a proxy URL such as http://proxy.example:3128") }

        // Go parses the text as a URL and, when that gives no scheme or no host, as "http://" + text; a scheme
        // followed by "://" is the only way the first reading wins with a host.
        var scheme = "http"
        var rest = bytes[...]
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), isScheme(bytes[..<colon]),
            bytes[colon...].starts(with: "://".utf8)
        {
            scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
            rest = bytes[(colon + 3)...]
        }
        let isSOCKS: Bool
        switch scheme {
        case "http": isSOCKS = false
        case "socks5", "socks5h": isSOCKS = true
        case "https":
            throw invalid(
                "an https:// proxy needs a TLS connection to the proxy itself, which NetKit does not support; use "
                    + "http:// (requests to https URLs still go through it in an encrypted CONNECT tunnel)")
        default:
            throw invalid("the scheme \"\(scheme)\" is not one NetKit can speak to a proxy; use http:// or socks5://")
        }

        let authorityEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        var hostAndPort = rest[..<authorityEnd]
        var credentials: ProxyCredentials?
        // The last "@", as Go splits, so that an unencoded "@" in a password still leaves the right host.
        if let at = hostAndPort.lastIndex(of: UInt8(ascii: "@")) {
            credentials = try userInfo(hostAndPort[..<at], invalid: invalid)
            hostAndPort = hostAndPort[(at + 1)...]
        }

        let host: String
        var portText: ArraySlice<UInt8> = []
        if hostAndPort.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")),
                let literal = ipv6Literal(hostAndPort[(hostAndPort.startIndex + 1)..<close])
            else { throw invalid("the host in brackets is not an IPv6 address") }
            host = literal
            let after = hostAndPort[(close + 1)...]
            if let first = after.first {
                guard first == UInt8(ascii: ":") else { throw invalid("only a port may follow the IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            var name = hostAndPort
            if let colon = hostAndPort.lastIndex(of: UInt8(ascii: ":")) {
                name = hostAndPort[..<colon]
                portText = hostAndPort[(colon + 1)...]
            }
            guard !name.isEmpty else {
                throw invalid("it has no host; give a proxy URL such as http://proxy.example:3128")
            }
            guard name.allSatisfy(isHostByte) else {
                throw invalid("the host has characters a host name cannot have (or an IPv6 address lacks brackets)")
            }
            host = String(decoding: name, as: UTF8.self)
        }

        var port = isSOCKS ? 1080 : 80
        // An empty port ("proxy:") is the default, as Go's URL.Port() reads it.
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let number = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(number)
            else { throw invalid("the port is not a number from 1 to 65535") }
            port = number
        }
        let server = ProxyServer(host: host, port: port, credentials: credentials)
        return isSOCKS ? .socks5(server) : .http(server)
    }

    /// RFC 3986's scheme: a letter, then letters, digits, `+`, `-` and `.`.
    private static func isScheme(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first, isLetter(first) else { return false }
        return bytes.allSatisfy {
            isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+")
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// What Go's URL parser lets through unescaped in a host: RFC 3986's unreserved and sub-delims, and the bytes of
    /// non-ASCII (internationalized) names, which the transport converts when it connects.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || "-._~!$&'()*+,;=".utf8.contains(byte)
    }

    /// The address in `[…]`, checked as Go's netip reads IPv6, with a zone (`%25eth0`, the `%` percent-encoded as
    /// URLs require) decoded to `fe80::1%eth0`.
    private static func ipv6Literal(_ bytes: ArraySlice<UInt8>) -> String? {
        var address = bytes
        var zone: ArraySlice<UInt8> = []
        if let percent = bytes.firstIndex(of: UInt8(ascii: "%")) {
            guard bytes[percent...].starts(with: "%25".utf8) else { return nil }
            address = bytes[..<percent]
            zone = bytes[(percent + 3)...]
            guard !zone.isEmpty, zone.allSatisfy(isHostByte) else { return nil }
        }
        let text = String(decoding: address, as: UTF8.self)
        guard text.utf8.contains(UInt8(ascii: ":")), NoProxyRule.address(text, allowsZone: false) != nil else {
            return nil
        }
        return zone.isEmpty ? text : text + "%" + String(decoding: zone, as: UTF8.self)
    }

    /// The credentials in a URL's user info, split at the first `:` and percent-decoded as Go decodes them; `nil`
    /// when there is nothing before the `@`.
    private static func userInfo(
        _ bytes: ArraySlice<UInt8>, invalid: (String) -> ConnectionSettingError
    ) throws(ConnectionSettingError) -> ProxyCredentials? {
        // Go's validUserinfo: anything else must be percent-encoded.
        let allowed = "-._:~!$&'()*+,;=%@".utf8
        guard
            bytes.allSatisfy({
                isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || allowed.contains($0)
            })
        else {
            throw invalid(
                "the user name or password has a character that must be percent-encoded (a space as %20, / as %2F)")
        }
        let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        let name = bytes[..<(colon ?? bytes.endIndex)]
        let secret = colon.map { bytes[($0 + 1)...] } ?? []
        guard let username = percentDecoded(name), let password = percentDecoded(secret) else {
            throw invalid("the user name or password is not valid percent-encoded UTF-8")
        }
        if username.isEmpty && password.isEmpty { return nil }
        return ProxyCredentials(username: username, password: password)
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "%") else {
                decoded.append(bytes[index])
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            else { return nil }
            decoded.append(high << 4 | low)
            index += 3
        }
        return String(validating: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

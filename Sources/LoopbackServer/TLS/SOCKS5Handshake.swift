#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's half of a SOCKS5 handshake without authentication (RFC 1928): the greeting and the request,
/// parsed from the bytes received so far. Pure: no I/O, nothing kept between calls.
///
/// Each parse answers ``Parse/needMore`` until the bytes hold a whole message (never asking for more than
/// ``maximumGreetingBytes`` or ``maximumRequestBytes`` in all), then ``Parse/parsed(_:consumed:)``; or
/// ``Parse/malformed(_:)`` with the reply a request failing that way gets, as early as the bytes tell.
enum SOCKS5Handshake {
    /// The protocol version, the first byte of every message.
    static let version: UInt8 = 0x05

    /// The longest greeting: version, method count, 255 methods.
    static let maximumGreetingBytes = 2 + 255

    /// The longest request: version, command, reserved byte, address type, a name of at most 255 bytes after
    /// its length byte, and the port.
    static let maximumRequestBytes = 4 + 1 + 255 + 2

    /// The authentication method meaning none.
    static let noAuthentication: UInt8 = 0x00

    /// The method answer meaning that none of the offered methods is acceptable; the client then closes.
    static let noAcceptableMethods: UInt8 = 0xFF

    /// What parsing the bytes received so far gave.
    enum Parse<Value> {
        /// The message is not complete yet.
        case needMore
        /// The message, and how many of the bytes it took; what follows is the client's next message or data.
        case parsed(Value, consumed: Int)
        /// The bytes cannot be this message; `Reply` is the answer a request gets before the connection closes.
        case malformed(Reply)
    }

    /// The reply codes (`REP`) of RFC 1928 §6.
    enum Reply: UInt8, Sendable {
        case succeeded = 0x00
        case generalFailure = 0x01
        case notAllowedByRuleset = 0x02
        case networkUnreachable = 0x03
        case hostUnreachable = 0x04
        case connectionRefused = 0x05
        case ttlExpired = 0x06
        case commandNotSupported = 0x07
        case addressTypeNotSupported = 0x08
    }

    /// The client's greeting: `05 NMETHODS METHODS…`.
    struct Greeting: Equatable {
        /// The authentication methods offered, in order; possibly none.
        let methods: [UInt8]

        /// Whether the client can go on without authenticating.
        var offersNoAuthentication: Bool { methods.contains(SOCKS5Handshake.noAuthentication) }
    }

    /// The request's command (`CMD`).
    enum Command: Equatable {
        case connect
        case bind
        case udpAssociate
        case other(UInt8)

        init(_ byte: UInt8) {
            switch byte {
            case 0x01: self = .connect
            case 0x02: self = .bind
            case 0x03: self = .udpAssociate
            default: self = .other(byte)
            }
        }
    }

    /// How the request named its target (`ATYP`).
    enum AddressType: UInt8, Equatable {
        case ipv4 = 0x01
        case domainName = 0x03
        case ipv6 = 0x04
    }

    /// The client's request: `05 CMD 00 ATYP DST.ADDR DST.PORT`.
    struct Request: Equatable {
        let command: Command
        let addressType: AddressType
        /// The address as text: dotted IPv4 (`127.0.0.1`), the name as sent (`service.test`), or IPv6 in its
        /// canonical form without brackets (`::1`).
        let host: String
        let port: Int

        /// `host:port`, with an IPv6 address in brackets (`[::1]:443`): how the proxy records the target.
        var authority: String {
            addressType == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }

    /// Parses a greeting; zero methods is a valid greeting that offers nothing acceptable.
    static func greeting(_ bytes: ArraySlice<UInt8>) -> Parse<Greeting> {
        guard let first = bytes.first else { return .needMore }
        guard first == version else { return .malformed(.generalFailure) }
        guard bytes.count >= 2 else { return .needMore }
        let count = Int(bytes[bytes.startIndex + 1])
        guard bytes.count >= 2 + count else { return .needMore }
        let methods = bytes[(bytes.startIndex + 2)..<(bytes.startIndex + 2 + count)]
        return .parsed(Greeting(methods: Array(methods)), consumed: 2 + count)
    }

    /// Parses a request, whatever its command; an unknown address type is malformed as soon as it is seen,
    /// since the length of what follows is then unknown.
    static func request(_ bytes: ArraySlice<UInt8>) -> Parse<Request> {
        let start = bytes.startIndex
        guard let first = bytes.first else { return .needMore }
        guard first == version else { return .malformed(.generalFailure) }
        // The reserved byte (start + 2) should be zero; like most servers, this one does not insist.
        guard bytes.count >= 4 else { return .needMore }
        let command = Command(bytes[start + 1])
        guard let addressType = AddressType(rawValue: bytes[start + 3]) else {
            return .malformed(.addressTypeNotSupported)
        }
        let addressStart: Int
        let addressLength: Int
        switch addressType {
        case .ipv4:
            (addressStart, addressLength) = (start + 4, 4)
        case .ipv6:
            (addressStart, addressLength) = (start + 4, 16)
        case .domainName:
            guard bytes.count >= 5 else { return .needMore }
            (addressStart, addressLength) = (start + 5, Int(bytes[start + 4]))
            guard addressLength > 0 else { return .malformed(.generalFailure) }
        }
        let end = addressStart + addressLength + 2
        guard bytes.endIndex >= end else { return .needMore }
        let address = bytes[addressStart..<(addressStart + addressLength)]
        let port = Int(bytes[end - 2]) << 8 | Int(bytes[end - 1])
        let host: String
        switch addressType {
        case .ipv4: host = address.map(String.init).joined(separator: ".")
        case .ipv6: host = ipv6Text(address)
        case .domainName: host = String(decoding: address, as: UTF8.self)
        }
        return .parsed(
            Request(command: command, addressType: addressType, host: host, port: port), consumed: end - start)
    }

    /// The method answer: `05 METHOD`.
    static func methodAnswer(_ method: UInt8) -> [UInt8] {
        [version, method]
    }

    /// A reply to a request: `05 REP 00 01 0.0.0.0:0`; the bound address is of no use to a test's client.
    static func reply(_ code: Reply) -> [UInt8] {
        [version, code.rawValue, 0x00, AddressType.ipv4.rawValue, 0, 0, 0, 0, 0, 0]
    }

    /// The canonical text of 16 address bytes (`::1`).
    private static func ipv6Text(_ bytes: ArraySlice<UInt8>) -> String {
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else {
            // Cannot happen for 16 bytes and a buffer of INET6_ADDRSTRLEN; groups in full as a fallback.
            return stride(from: bytes.startIndex, to: bytes.endIndex, by: 2).map {
                String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16)
            }.joined(separator: ":")
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitDigest

/// The SubjectPublicKeyInfo of an X.509 certificate, as the DER bytes the certificate holds, and the subject's
/// common name: what a certificate pin hashes, and what a pinning failure names.
///
/// The reader walks only the path to the element (RFC 5280 §4.1):
/// ```
/// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
/// TBSCertificate ::= SEQUENCE { [0] EXPLICIT version OPTIONAL, serialNumber INTEGER, signature, issuer,
///                               validity, subject, subjectPublicKeyInfo SEQUENCE, ... }
/// ```
/// It reads bytes a server sent, before anything has vouched for them, so it is bounded: every length is checked
/// against the bytes that hold it, indefinite lengths (BER, never DER), tags of more than one byte and lengths of
/// more than four bytes are refused, it descends a fixed number of levels (no recursion), and a certificate must be
/// exactly the bytes given. It checks no signature and no date: the TLS stack has done that, or will; a pin is
/// checked on top of that validation, never instead of it.
package struct SubjectPublicKeyInfo: Sendable, Hashable {
    /// The whole element, tag and length included: the bytes
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform der` prints, and the ones a pin hashes.
    package let der: [UInt8]
    /// The last common name (2.5.4.3) of the subject, the most specific by X.509's order; `nil` when the subject
    /// has none or it is not text this reader decodes. Control characters are replaced by `?` and the text is cut
    /// to 256 characters, since it comes from the server and ends up in messages and logs.
    package let subjectCommonName: String?

    /// Reads the SubjectPublicKeyInfo of `certificate`, an X.509 certificate in DER.
    /// - Throws: ``Malformed`` for bytes that are not one.
    package init(certificate bytes: [UInt8]) throws(Malformed) {
        let certificate = try Self.element(in: bytes, at: 0, end: bytes.count, tag: Tag.sequence, "certificate")
        guard certificate.end == bytes.count else {
            throw Malformed("\(bytes.count - certificate.end) bytes follow the certificate")
        }
        // The three parts of the certificate, and nothing else: bytes that merely start like one are refused.
        let tbs = try Self.element(
            in: bytes, at: certificate.contents.lowerBound, end: certificate.end, tag: Tag.sequence,
            "tbsCertificate")
        let algorithm = try Self.element(
            in: bytes, at: tbs.end, end: certificate.end, tag: Tag.sequence, "signatureAlgorithm")
        let signature = try Self.element(
            in: bytes, at: algorithm.end, end: certificate.end, tag: Tag.bitString, "signatureValue")
        guard signature.end == certificate.end else { throw Malformed("the certificate has more than three parts") }

        var position = tbs.contents.lowerBound
        let first = try Self.element(in: bytes, at: position, end: tbs.end, tag: nil, "tbsCertificate's first field")
        if first.tag == Tag.version { position = first.end }
        let fields: [(tag: UInt8, name: String)] = [
            (Tag.integer, "serialNumber"), (Tag.sequence, "signature"), (Tag.sequence, "issuer"),
            (Tag.sequence, "validity"), (Tag.sequence, "subject"),
        ]
        var subject = first
        for field in fields {
            subject = try Self.element(in: bytes, at: position, end: tbs.end, tag: field.tag, field.name)
            position = subject.end
        }
        let info = try Self.element(in: bytes, at: position, end: tbs.end, tag: Tag.sequence, "subjectPublicKeyInfo")
        // SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }.
        let keyAlgorithm = try Self.element(
            in: bytes, at: info.contents.lowerBound, end: info.end, tag: Tag.sequence,
            "subjectPublicKeyInfo's algorithm")
        let key = try Self.element(
            in: bytes, at: keyAlgorithm.end, end: info.end, tag: Tag.bitString, "subjectPublicKey")
        guard key.end == info.end else { throw Malformed("subjectPublicKeyInfo has more than two parts") }

        der = Array(bytes[info.start..<info.end])
        subjectCommonName = Self.commonName(in: bytes, subject: subject)
    }

    /// The base64 SHA-256 of ``der``: the pin, as OkHttp and `openssl dgst -sha256 -binary | base64` write it.
    package var sha256: String {
        Data(SHA256.hash(der)).base64EncodedString()
    }

    /// Why bytes are not a certificate this reader can read: which element, and what is wrong with it.
    package struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, in words; it names elements and counts, never the bytes.
        package let reason: String

        init(_ reason: String) { self.reason = reason }

        /// "Not an X.509 certificate in DER: <reason>".
        package var description: String { "Not an X.509 certificate in DER: \(reason)" }
    }

    /// One element: its tag, where it starts (its tag byte) and where its contents are. Indices into the input.
    private struct Element {
        let tag: UInt8
        let start: Int
        let contents: Range<Int>
        var end: Int { contents.upperBound }
    }

    /// The tags the reader expects (X.690 §8, one byte each).
    private enum Tag {
        static let integer: UInt8 = 0x02
        static let bitString: UInt8 = 0x03
        static let objectIdentifier: UInt8 = 0x06
        static let utf8String: UInt8 = 0x0C
        static let printableString: UInt8 = 0x13
        static let teletexString: UInt8 = 0x14
        static let ia5String: UInt8 = 0x16
        static let bmpString: UInt8 = 0x1E
        static let sequence: UInt8 = 0x30
        static let set: UInt8 = 0x31
        /// `[0] EXPLICIT`, constructed: the version of a v2 or v3 certificate.
        static let version: UInt8 = 0xA0
    }

    /// The element at `position`, whose bytes must all lie before `end` (never past `bytes.count`, which every
    /// caller's `end` respects since it is the input's size or an enclosing element's end); `tag` is the tag it must
    /// have, or `nil` for any.
    private static func element(
        in bytes: [UInt8], at position: Int, end: Int, tag expected: UInt8?, _ name: String
    ) throws(Malformed) -> Element {
        guard position >= 0, position < end, end <= bytes.count else { throw Malformed("\(name) is missing") }
        let tag = bytes[position]
        if let expected, tag != expected {
            throw Malformed("\(name) has tag 0x\(hex(tag)), expected 0x\(hex(expected))")
        }
        // The high-tag-number form; no element on the path uses it.
        guard tag & 0x1F != 0x1F else { throw Malformed("\(name) has a multi-byte tag") }
        var cursor = position + 1
        guard cursor < end else { throw Malformed("\(name) is cut off in its length") }
        let first = bytes[cursor]
        cursor += 1
        // In 64 bits whatever the platform: four length bytes overflow a 32-bit `Int` (watchOS's arm64_32).
        var length: UInt64 = 0
        if first < 0x80 {
            length = UInt64(first)
        } else if first == 0x80 {
            throw Malformed("\(name) has an indefinite length, which DER does not allow")
        } else {
            // Four bytes reach 4 GiB, beyond any certificate; more (0xFF is reserved) cannot be one.
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw Malformed("\(name) has a length of \(count) bytes") }
            guard count <= end - cursor else { throw Malformed("\(name) is cut off in its length") }
            for _ in 0..<count {
                length = length << 8 | UInt64(bytes[cursor])
                cursor += 1
            }
        }
        guard length <= UInt64(end - cursor) else {
            throw Malformed("\(name) claims \(length) bytes, \(end - cursor) are left")
        }
        return Element(tag: tag, start: position, contents: cursor..<(cursor + Int(length)))
    }

    private static func hex(_ byte: UInt8) -> String {
        SHA256.hex([byte]).uppercased()
    }

    /// The last common name in `subject`, a Name (SEQUENCE OF SET OF SEQUENCE { type OID, value }); `nil` for none,
    /// and for a subject this reader cannot walk (the name only decorates messages, so it never fails the read).
    private static func commonName(in bytes: [UInt8], subject: Element) -> String? {
        // id-at-commonName, 2.5.4.3.
        let commonNameOID: [UInt8] = [0x55, 0x04, 0x03]
        var found: String?
        var position = subject.contents.lowerBound
        while position < subject.end {
            guard let set = try? element(in: bytes, at: position, end: subject.end, tag: Tag.set, "name") else {
                return nil
            }
            position = set.end
            var inner = set.contents.lowerBound
            while inner < set.end {
                guard
                    let pair = try? element(in: bytes, at: inner, end: set.end, tag: Tag.sequence, "attribute"),
                    let type = try? element(
                        in: bytes, at: pair.contents.lowerBound, end: pair.end, tag: Tag.objectIdentifier, "type"),
                    let value = try? element(in: bytes, at: type.end, end: pair.end, tag: nil, "value")
                else { return nil }
                inner = pair.end
                if bytes[type.contents].elementsEqual(commonNameOID),
                    let text = decode(bytes[value.contents], tag: value.tag)
                {
                    found = text
                }
            }
        }
        return found.map(printable)
    }

    /// The text of a directory string, for the types certificates use; `nil` for others and for invalid text.
    private static func decode(_ bytes: ArraySlice<UInt8>, tag: UInt8) -> String? {
        switch tag {
        case Tag.utf8String, Tag.printableString, Tag.ia5String:
            return String(validating: bytes, as: UTF8.self)
        case Tag.teletexString:
            // In practice Latin-1, as OpenSSL and browsers read it.
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case Tag.bmpString:
            // UTF-16, big-endian.
            guard bytes.count.isMultiple(of: 2) else { return nil }
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
                index += 2
            }
            return String(validating: units, as: UTF16.self)
        default:
            return nil
        }
    }

    /// `text` safe to print on one line: a server chooses it, and a newline or an escape sequence in it could forge
    /// log lines or move a terminal's cursor.
    private static func printable(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(256) {
            let category = scalar.properties.generalCategory
            let unsafe =
                category == .control || category == .format || category == .lineSeparator
                || category == .paragraphSeparator
            scalars.append(unsafe ? "?" : scalar)
        }
        return String(scalars)
    }
}

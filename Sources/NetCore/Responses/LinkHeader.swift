#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The links of a response's `Link` header fields (RFC 8288 §3): each target with its relation types and
/// parameters, the target resolved against the URL that answered.
///
/// ```swift
/// // Link: <https://api.example.com/users?page=2>; rel="next", <https://api.example.com/users?page=9>; rel="last"
/// let links = LinkHeader(response.headerFields, base: response.url)
/// links.first(relation: "next")?.url   // https://api.example.com/users?page=2
/// ```
///
/// Pure and tolerant: link-values may come in one field or several; parameter values may be tokens or quoted
/// strings (`\"` escapes, commas and semicolons inside); commas and semicolons inside `<…>` belong to the target. A
/// link-value that cannot be read is skipped, never an error. The work is bounded (see ``Limits``): a hostile header
/// costs at most ``Limits/maxBytes`` bytes examined and yields at most ``Limits/maxLinks`` links.
///
/// Relation types are compared case-insensitively (ASCII); parameter names are lowercased. As RFC 8288 §3.3 says,
/// a `rel` after the first in a link-value is ignored; so is any repeated parameter when read with
/// ``Link/parameter(_:)``.
public struct LinkHeader: Sendable, Hashable {
    /// One link-value: a target, its relation types and its parameters.
    public struct Link: Sendable, Hashable {
        /// The target as written between `<` and `>`: a URI reference, perhaps relative.
        public let target: String
        /// The target resolved against the base URL the header was read with (RFC 3986 §5), or as it is when it is
        /// absolute; `nil` when it is relative and there was no base, or when it is not a URL at all.
        public let url: URL?
        /// The relation types of the first `rel` parameter, lowercased, in order (`rel="next last"` has two).
        public let relations: [String]
        /// Every parameter in order, names lowercased; a parameter without `=` has a `nil` value.
        public let parameters: [Parameter]

        /// Creates a link from its parts: the parser's result. (A caller builds links from field values, with
        /// ``LinkHeader/init(fieldValues:base:limits:)``.)
        init(target: String, url: URL?, relations: [String], parameters: [Parameter]) {
            self.target = target
            self.url = url
            self.relations = relations
            self.parameters = parameters
        }

        /// Whether one of the link's relation types is `relation`, compared case-insensitively.
        public func hasRelation(_ relation: String) -> Bool {
            relations.contains { HeaderValidation.namesMatch($0, relation) }
        }

        /// The value of the first parameter named `name` (any case); `nil` when there is none, or it has no value.
        public func parameter(_ name: String) -> String? {
            parameters.first { HeaderValidation.namesMatch($0.name, name) }?.value
        }

        /// The `anchor` parameter: when present, the link is about that resource rather than the response.
        public var anchor: String? { parameter("anchor") }
    }

    /// A link parameter: `rel="next"`, `title=front`, or a name alone.
    public struct Parameter: Sendable, Hashable {
        /// The name, lowercased.
        public let name: String
        /// The value, unquoted and unescaped; `nil` for a name without `=`.
        public let value: String?

        /// Creates a parameter; `name` is lowercased.
        init(name: String, value: String?) {
            self.name = HeaderValidation.lowercased(name)
            self.value = value
        }
    }

    /// How much of a `Link` header is read: a floor under the work a hostile server can cause.
    public struct Limits: Sendable, Hashable {
        /// The most bytes examined, over every field together; a link-value cut by the limit is skipped. 32 KiB by
        /// default.
        public var maxBytes: Int
        /// The most link-values read (those skipped as malformed count too). 256 by default.
        public var maxLinks: Int

        /// Limits with these bounds.
        public init(maxBytes: Int = 32 * 1024, maxLinks: Int = 256) {
            self.maxBytes = max(0, maxBytes)
            self.maxLinks = max(0, maxLinks)
        }

        /// 32 KiB and 256 link-values.
        public static let `default` = Limits()
    }

    /// The links, in the order of the fields and of the link-values in each.
    public let links: [Link]

    /// The links of `fieldValues`, the values of the `Link` fields in order, targets resolved against `base`.
    public init(fieldValues: some Sequence<String>, base: URL? = nil, limits: Limits = .default) {
        var parser = LinkHeaderParser(base: base, limits: limits)
        for value in fieldValues {
            guard parser.parse(field: value) else { break }
        }
        self.links = parser.links
    }

    /// The links of every `Link` field in `fields`, targets resolved against `base` (the URL that answered).
    public init(_ fields: HTTPHeaderFields, base: URL? = nil, limits: Limits = .default) {
        self.init(fieldValues: fields.values(for: "Link"), base: base, limits: limits)
    }

    /// The first link with the relation type `relation` (any case), in order.
    public func first(relation: String) -> Link? {
        links.first { $0.hasRelation(relation) }
    }

    /// Every link with the relation type `relation` (any case), in order.
    public func links(relation: String) -> [Link] {
        links.filter { $0.hasRelation(relation) }
    }
}

/// The state of one read of `Link` fields: what has been found and what is left of the budget.
struct LinkHeaderParser {
    let base: URL?
    let limits: LinkHeader.Limits
    private(set) var links: [LinkHeader.Link] = []
    private var bytesLeft: Int
    private var valuesLeft: Int

    init(base: URL?, limits: LinkHeader.Limits) {
        self.base = base
        self.limits = limits
        self.bytesLeft = limits.maxBytes
        self.valuesLeft = limits.maxLinks
    }

    /// Reads the link-values of one field value; `false` once the budget is spent (read no more fields).
    mutating func parse(field: String) -> Bool {
        guard bytesLeft > 0, valuesLeft > 0 else { return false }
        let bytes = Array(field.utf8.prefix(bytesLeft))
        let isCut = bytes.count < field.utf8.count
        bytesLeft -= bytes.count
        var reader = Reader(bytes: bytes)
        while valuesLeft > 0 {
            reader.skip { $0 == UInt8(ascii: ",") || Reader.isSpace($0) }
            if reader.isAtEnd { break }
            valuesLeft -= 1
            let parsed = reader.linkValue()
            // A link-value that reached the end of a cut field may have lost its tail: skip it.
            if let parsed, !(isCut && reader.isAtEnd) { append(parsed) }
        }
        return bytesLeft > 0 && valuesLeft > 0
    }

    private mutating func append(_ parsed: Reader.LinkValue) {
        let target = String(decoding: parsed.target, as: UTF8.self)
        var relations: [String] = []
        if let rel = parsed.parameters.first(where: { $0.name == "rel" }), let value = rel.value {
            relations = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map {
                HeaderValidation.lowercased(String($0))
            }
        }
        links.append(
            LinkHeader.Link(
                target: target, url: Self.resolve(target, against: base), relations: relations,
                parameters: parsed.parameters))
    }

    /// `target` resolved against `base` (RFC 3986 §5); `nil` when it is not a URL, or relative without a base.
    static func resolve(_ target: String, against base: URL?) -> URL? {
        guard let url = URL(string: target, relativeTo: base)?.absoluteURL, url.scheme != nil else { return nil }
        return url
    }
}

/// A cursor over one field value's bytes.
private struct Reader {
    struct LinkValue {
        var target: ArraySlice<UInt8>
        var parameters: [LinkHeader.Parameter]
    }

    let bytes: [UInt8]
    var position = 0

    var isAtEnd: Bool { position >= bytes.count }
    var current: UInt8? { isAtEnd ? nil : bytes[position] }

    static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    mutating func skip(while test: (UInt8) -> Bool) {
        while let byte = current, test(byte) { position += 1 }
    }

    /// One link-value from here: `nil` when it cannot be read, having moved past it (to the next comma outside
    /// quotes and angle brackets, or to the end).
    mutating func linkValue() -> LinkValue? {
        guard current == UInt8(ascii: "<") else {
            skipMalformed()
            return nil
        }
        position += 1
        let start = position
        // A URI reference holds no `>`: the first one ends it, whatever commas or semicolons come before.
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: ">")) else {
            position = bytes.count
            return nil
        }
        var value = LinkValue(target: trimmed(bytes[start..<end]), parameters: [])
        position = end + 1
        while true {
            skip(while: Self.isSpace)
            guard let byte = current, byte != UInt8(ascii: ",") else { return value }
            guard byte == UInt8(ascii: ";") else {
                skipMalformed()
                return nil
            }
            position += 1
            skip(while: Self.isSpace)
            if current == UInt8(ascii: ";") || current == UInt8(ascii: ",") || isAtEnd { continue }  // an empty one
            guard let parameter = parameter() else {
                skipMalformed()
                return nil
            }
            value.parameters.append(parameter)
        }
    }

    /// `name [= token / quoted-string]` from here; `nil` when it cannot be read.
    private mutating func parameter() -> LinkHeader.Parameter? {
        let start = position
        skip(while: HeaderValidation.isTokenByte)
        guard position > start else { return nil }
        let name = String(decoding: bytes[start..<position], as: UTF8.self)
        skip(while: Self.isSpace)
        guard current == UInt8(ascii: "=") else { return LinkHeader.Parameter(name: name, value: nil) }
        position += 1
        skip(while: Self.isSpace)
        if current == UInt8(ascii: "\"") {
            guard let value = quotedString() else { return nil }
            return LinkHeader.Parameter(name: name, value: value)
        }
        // A token, read leniently: anything up to the next delimiter (`title=a/b` is common enough).
        let valueStart = position
        skip { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") && !Self.isSpace($0) && $0 != UInt8(ascii: "\"") }
        return LinkHeader.Parameter(name: name, value: String(decoding: bytes[valueStart..<position], as: UTF8.self))
    }

    /// A quoted string from its opening `"`, escapes undone; `nil` when it never closes.
    private mutating func quotedString() -> String? {
        position += 1
        var value: [UInt8] = []
        while let byte = current {
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                value.append(escaped)
                position += 1
            default:
                value.append(byte)
            }
        }
        return nil
    }

    /// Moves past a link-value that cannot be read: to the next comma outside quotes and angle brackets.
    private mutating func skipMalformed() {
        var inQuotes = false
        var inBrackets = false
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\\") where inQuotes:
                position += 1
            case UInt8(ascii: "\"") where !inBrackets:
                inQuotes.toggle()
            case UInt8(ascii: "<") where !inQuotes:
                inBrackets = true
            case UInt8(ascii: ">") where !inQuotes:
                inBrackets = false
            case UInt8(ascii: ",") where !inQuotes && !inBrackets:
                return
            default:
                break
            }
            position += 1
        }
    }

    private func trimmed(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = slice
        while let first = slice.first, Self.isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, Self.isSpace(last) { slice = slice.dropLast() }
        return slice
    }
}

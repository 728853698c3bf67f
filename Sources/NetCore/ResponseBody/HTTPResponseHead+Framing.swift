#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPResponseHead {
    /// The `Content-Length` values of a head that declares several different ones (in several fields, or in one
    /// field as a list) without `Transfer-Encoding`; `nil` when the framing is sound.
    ///
    /// RFC 9112 §6.3 makes such a message an unrecoverable error: a client that picks one length reads a body
    /// another reader would frame differently (the root of response smuggling). libcurl reads the last value.
    ///
    /// Every response passes through here, so the values are compared as bytes, without Foundation, and the list is
    /// built only for a head that conflicts: a sound head costs one pass over its fields and no allocation.
    var conflictingContentLengths: [String]? {
        var first: Substring?
        var conflicting = false
        forEachContentLength { value in
            if let first {
                conflicting = conflicting || !first.utf8.elementsEqual(value.utf8)
            } else {
                first = value
            }
        }
        guard conflicting, !headerFields.contains("Transfer-Encoding") else { return nil }
        var values: [String] = []
        forEachContentLength { values.append(String($0)) }
        return values
    }

    /// Calls `body` with every `Content-Length` value, fields and list elements alike, each without the spaces and
    /// tabs (RFC 9110's OWS) around it; empty elements (`5,,5`) left out.
    private func forEachContentLength(_ body: (Substring) -> Void) {
        // By index: a field read in place is not copied to compare its name (see `HTTPHeaderFields.value(for:)`).
        for index in headerFields.indices
        where HeaderValidation.namesMatch(headerFields[index].name, "Content-Length") {
            var rest = Substring(headerFields[index].value)
            while !rest.isEmpty {
                let comma = rest.utf8.firstIndex(of: UInt8(ascii: ",")) ?? rest.endIndex
                let element = rest[..<comma]
                rest = comma == rest.endIndex ? rest[comma...] : rest[rest.utf8.index(after: comma)...]
                if !element.isEmpty { body(Self.trimmingSpaces(element)) }
            }
        }
    }

    /// `value` without the spaces and tabs around it.
    private static func trimmingSpaces(_ value: Substring) -> Substring {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = value.utf8.firstIndex(where: { !isSpace($0) }),
            let last = value.utf8.lastIndex(where: { !isSpace($0) })
        else { return value[value.endIndex...] }
        return value[start...last]
    }

    /// Throws when the head's framing is unsound (``conflictingContentLengths``); `host()` names the host in the
    /// error, and is asked only then.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/badResponse`` naming the values.
    func checkFraming(host: @autoclosure () -> String?) throws(TransportError) {
        guard let values = conflictingContentLengths else { return }
        let shown = values.prefix(4).map { HeaderValidation.printable(String($0.prefix(20))) }.joined(separator: ", ")
        throw TransportError(
            .badResponse, host: host(),
            detail: "the response declared conflicting Content-Length values (\(shown)), so its body cannot be "
                + "framed safely (RFC 9112 §6.3)")
    }

    /// Whether the head declares a `Content-Length` beyond `limit` for a body NetKit would read as it is: not
    /// encoded (a decoded body's length is not the declared one), not the answer to a `HEAD`, a status that has a
    /// body. Such a body cannot fit, so waiting for it would only let a server that declares gigabytes and trickles
    /// hold the request as long as it likes.
    func declaresBody(longerThan limit: Int, method: HTTPRequestMethod) -> Bool {
        guard method != .head, statusCode >= 200, statusCode != 204, statusCode != 304,
            let declared = declaredContentLength, declared > Int64(limit)
        else { return false }
        let encoding =
            headerFields.value(for: "Content-Encoding").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        return encoding.isEmpty || encoding == "identity"
    }
}

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
    var conflictingContentLengths: [String]? {
        guard !headerFields.contains("Transfer-Encoding") else { return nil }
        let values = headerFields.values(for: "Content-Length")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard Set(values).count > 1 else { return nil }
        return values
    }

    /// Throws when the head's framing is unsound (``conflictingContentLengths``).
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/badResponse`` naming the values.
    func checkFraming(host: String?) throws(TransportError) {
        guard let values = conflictingContentLengths else { return }
        let shown = values.prefix(4).map { HeaderValidation.printable(String($0.prefix(20))) }.joined(separator: ", ")
        throw TransportError(
            .badResponse, host: host,
            detail: "the response declared conflicting Content-Length values (\(shown)), so its body cannot be "
                + "framed safely (RFC 9112 §6.3)")
    }

    /// Whether the head declares a `Content-Length` beyond `limit` for a body NetKit would read as it is: not
    /// encoded (a decoded body's length is not the declared one), not the answer to a `HEAD`, a status that has a
    /// body. Such a body cannot fit, so waiting for it would only let a server that declares gigabytes and trickles
    /// hold the request as long as it likes.
    func declaresBody(longerThan limit: Int, method: HTTPMethod) -> Bool {
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

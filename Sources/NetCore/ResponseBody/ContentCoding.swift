#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a response's `Content-Encoding` asks of the transport that reads its body: one decision for every transport,
/// so that a body reaches the caller decoded whole or not at all — never half-decoded, never still encoded as if it
/// were the content, never as a lost connection.
///
/// NetKit decodes `gzip` (`x-gzip` is its old name) and `deflate`, stacked in any order, at most
/// ``maximumCodings`` listed; `identity` changes nothing. Any other coding (`br`, `zstd`, `compress`, a name nobody
/// registered) refuses the response with a ``TransportError`` of kind ``TransportError/Kind/badResponse`` that is not
/// transient (``TransportError/isPermanent``): the server would send the same bytes again. A response without a body
/// (to `HEAD`, 1xx, 204, 304, a declared `Content-Length: 0`) has nothing to decode. Transports ask only for the
/// codings NetKit decodes (``acceptEncoding``) when the request names none.
///
/// Pure: decided from the field values alone, tested without I/O.
package enum ContentCoding: Equatable, Sendable {
    /// A coding NetKit decodes. Both are zlib streams (RFC 1952 and RFC 1950), which a decoder tells apart by
    /// their first bytes.
    package enum Coding: String, Equatable, Sendable {
        case gzip
        case deflate
    }

    /// Nothing to decode: no coding, only `identity`, or no body.
    case identity
    /// Decode these codings, in this order: the reverse of the field's, whose last coding was applied last.
    case decode([Coding])
    /// Refuse the response, for this reason (what the server sent, printable, and why NetKit does not decode it).
    case refuse(String)

    /// 4: the most codings a `Content-Encoding` may list, `identity` included. libcurl (7.88) refuses more than 5
    /// before the head; a real server applies one, a misconfigured proxy two.
    static let maximumCodings = 4

    /// 100: how many times the encoded bytes a decoded body may grow to. Text and JSON compress 3 to 20 times; a
    /// gzip bomb (a megabyte that inflates to a gigabyte) a thousand. AsyncHTTPClientTransport's
    /// `defaultDecompressionRatio` is the same.
    package static let decompressionRatio = 100

    /// `gzip, deflate`: the `Accept-Encoding` transports send for a request that names none, so that a server
    /// never answers in a coding NetKit refuses unless the caller asked for it.
    package static let acceptEncoding = "gzip, deflate"

    /// The plan for a response head, answering a request of `method`.
    package init(head: HTTPResponseHead, method: HTTPRequestMethod) {
        self.init(
            contentEncoding: head.headerFields.values(for: "Content-Encoding"), statusCode: head.statusCode,
            method: method, declaredLength: head.declaredContentLength)
    }

    /// The plan for the values of a response's `Content-Encoding` fields (one field, or several, each a list).
    /// - Parameters:
    ///   - contentEncoding: Every `Content-Encoding` field value, in order (a joined value is one list too).
    ///   - statusCode: The response's status.
    ///   - method: The method of the request it answers.
    ///   - declaredLength: Its `Content-Length`, if it declares one.
    package init(contentEncoding: [String], statusCode: Int, method: HTTPRequestMethod, declaredLength: Int64?) {
        guard !contentEncoding.isEmpty else {
            self = .identity
            return
        }
        let hasBody =
            method != .head && statusCode >= 200 && statusCode != 204 && statusCode != 304 && declaredLength != 0
        guard hasBody else {
            self = .identity
            return
        }
        // The values are as long as the transport's head limit allows; the names kept stop one past the most allowed.
        var listed: [String] = []
        for element in contentEncoding.lazy.flatMap({ $0.split(separator: ",") }) {
            let name = element.trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { listed.append(name) }
            if listed.count > Self.maximumCodings { break }
        }
        guard listed.count <= Self.maximumCodings else {
            self = .refuse(
                "the response lists more than \(Self.maximumCodings) content codings (Content-Encoding: "
                    + "\(Self.shown(contentEncoding.joined(separator: ", ")))), more than any server applies; "
                    + "NetKit decodes at most \(Self.maximumCodings)")
            return
        }
        var codings: [Coding] = []
        for name in listed {
            switch name.lowercased() {
            case "identity": continue
            case "gzip", "x-gzip": codings.append(.gzip)
            case "deflate": codings.append(.deflate)
            default:
                self = .refuse(
                    "the body is in the content coding \"\(Self.shown(name))\", which NetKit does not decode "
                        + "(it decodes gzip and deflate, and asks for those alone when a request names no "
                        + "Accept-Encoding); it is refused rather than handed over still encoded")
                return
            }
        }
        self = codings.isEmpty ? .identity : .decode(codings.reversed())
    }

    /// The error a refused response ends with: a ``TransportError/Kind/badResponse`` that is not transient; `nil`
    /// for a plan that refuses nothing.
    package func refusal(host: String?) -> TransportError? {
        guard case .refuse(let reason) = self else { return nil }
        return TransportError.undecodableBody(host: host, detail: reason)
    }

    /// The most decoded bytes a body of `declaredLength` encoded bytes may grow to (``decompressionRatio`` times),
    /// for a transport that sees the decoded bytes only; `nil` when nothing is decoded or no length is declared.
    package func decodedLimit(declaredLength: Int64?) -> Int64? {
        guard case .decode = self, let declaredLength, declaredLength > 0 else { return nil }
        let (limit, overflow) = declaredLength.multipliedReportingOverflow(by: Int64(Self.decompressionRatio))
        return overflow ? .max : limit
    }

    /// The error of a body whose decoded bytes outgrew ``decompressionRatio`` times the encoded ones.
    package static func bomb(host: String?, encoded: Int64, decoded: Int64) -> TransportError {
        TransportError.undecodableBody(
            host: host,
            detail: "the decoded body grew past the decompression limit: \(decoded) bytes from \(encoded) encoded, "
                + "more than \(decompressionRatio) times (a compression bomb, or a body NetKit will not inflate)")
    }

    /// A value from the server as a message shows it: printable, at most 40 characters.
    private static func shown(_ value: String) -> String {
        let printable = HeaderValidation.printable(String(value.prefix(41)))
        return printable.count > 40 ? printable.prefix(40) + "…" : printable
    }
}

import Foundation
import LoopbackServer
import NetCore

/// Responses in every kind of content coding, served on 127.0.0.1, and what a transport makes of each: decoded
/// whole, or refused with a malformed-response error that is not transient (``NetCore/ContentCoding``). Never
/// still encoded, or half-decoded, as a success. The rows the transports' coding tests run.
package enum CodingTable {
    /// 1,200 bytes of text, the content of most rows.
    package static let text = Data(String(repeating: "NetKit decodes codings whole. ", count: 40).utf8)
    /// "hello" as brotli: one uncompressed meta-block (RFC 7932 §9.2), then an empty last one.
    package static let brotliHello = Data([0x40, 0x00, 0x10]) + Data("hello".utf8) + Data([0x03])

    /// What a row ends as.
    package enum Outcome: Equatable, Sendable, CustomStringConvertible {
        /// A response whose body is this.
        case body(Data)
        /// A ``NetCore/TransportError`` of kind `badResponse` that is not transient.
        case refused
        /// Anything else: the error's type and text.
        case failed(String)

        package var description: String {
            switch self {
            case .body(let data):
                "body of \(data.count) bytes \(String(decoding: data.prefix(24), as: UTF8.self).debugDescription)"
            case .refused: "refused (badResponse, not transient)"
            case .failed(let text): text
            }
        }
    }

    /// One response.
    package struct Row: Sendable, CustomStringConvertible {
        /// The row's name.
        package let name: String
        /// The `Content-Encoding` field's value.
        package let contentEncoding: String
        /// The body as sent.
        package let body: Data
        /// What NetKit's rule says it ends as.
        package let expected: Outcome

        package var description: String { name }
    }

    /// Every row.
    package static let rows: [Row] = [
        Row(name: "gzip", contentEncoding: "gzip", body: GzipZeros.stored(text), expected: .body(text)),
        Row(
            name: "gzip, gzip", contentEncoding: "gzip, gzip", body: GzipZeros.stored(GzipZeros.stored(text)),
            expected: .body(text)),
        Row(
            name: "identity, gzip", contentEncoding: "identity, gzip", body: GzipZeros.stored(text),
            expected: .body(text)),
        Row(name: "x-gzip", contentEncoding: "x-gzip", body: GzipZeros.stored(text), expected: .body(text)),
        Row(name: "deflate", contentEncoding: "deflate", body: GzipZeros.zlibStored(text), expected: .body(text)),
        Row(
            name: "gzip, deflate", contentEncoding: "gzip, deflate",
            body: GzipZeros.zlibStored(GzipZeros.stored(text)), expected: .body(text)),
        Row(name: "br", contentEncoding: "br", body: brotliHello, expected: .refused),
        Row(name: "zstd", contentEncoding: "zstd", body: text, expected: .refused),
        Row(name: "compress", contentEncoding: "compress", body: text, expected: .refused),
        Row(name: "an unknown coding", contentEncoding: "netkit-unknown", body: text, expected: .refused),
        Row(name: "gzip, br", contentEncoding: "gzip, br", body: brotliHello, expected: .refused),
        Row(
            name: "five codings", contentEncoding: "identity, identity, identity, identity, gzip",
            body: GzipZeros.stored(text), expected: .refused),
        Row(
            name: "six codings", contentEncoding: "identity, identity, identity, identity, identity, gzip",
            body: GzipZeros.stored(text), expected: .refused),
        Row(
            name: "a gzip bomb under a stored gzip layer (gzip, gzip)", contentEncoding: "gzip, gzip",
            body: GzipZeros.stored(GzipZeros.make()), expected: .refused),
        Row(name: "a gzip bomb", contentEncoding: "gzip", body: GzipZeros.make(), expected: .refused),
        Row(name: "an x-gzip bomb", contentEncoding: "x-gzip", body: GzipZeros.make(), expected: .refused),
        Row(
            name: "a truncated inner layer", contentEncoding: "gzip, gzip",
            body: GzipZeros.stored(GzipZeros.stored(text).dropLast(12)), expected: .refused),
        Row(
            name: "bytes after the inner layer's end", contentEncoding: "gzip, gzip",
            body: GzipZeros.stored(GzipZeros.stored(text) + Data("trailing".utf8)), expected: .refused),
    ]

    /// The row named `name`.
    package static func row(_ name: String) -> Row? {
        rows.first { $0.name == name }
    }

    /// Serves `row` (with its `Content-Length`) and reads it through `transport`: collected whole (as `send` does,
    /// ``NetCore/TransportRequest/wholeBody``) or streamed.
    package static func run(_ row: Row, on transport: any HTTPTransport, whole: Bool) async throws -> Outcome {
        let server = try LoopbackServer { _ in
            LoopbackResponse(headers: [("Content-Encoding", row.contentEncoding)], body: row.body)
        }
        defer { server.stop() }
        var request = TransportRequest(head: try HTTPRequestHead(method: .get, url: server.baseURL))
        if whole { request.wholeBody = WholeBodyLimits(success: 64 << 20, failure: 1 << 20) }
        do {
            let response = try await transport.send(request)
            return .body(try await response.body.collect(upTo: 64 << 20))
        } catch let error as TransportError where error.kind == .badResponse && !error.isTransient {
            return .refused
        } catch {
            return .failed("\(type(of: error)): \(error)")
        }
    }
}

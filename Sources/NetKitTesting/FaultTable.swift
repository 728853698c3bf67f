import Foundation
import LoopbackServer
import NetCore

/// Misbehaving servers on 127.0.0.1 and what NetKit's engine makes of each over a given transport: the executable
/// rows of the fault table in Docs/Reliability.md.
///
/// Each row starts its own server, sends one `GET` through a ``NetCore/RequestExecutor`` over the transport, and
/// reports the outcome in a few words: `200 "ok"`, or the kind of the error NetKit threw. Nothing is counted as a
/// success that was not one: the body the caller gets is exactly the one the server framed.
package enum FaultTable {
    /// What a row ended with.
    package enum Outcome: Hashable, Sendable, CustomStringConvertible {
        /// A response, with its status and body.
        case response(status: Int, body: String)
        /// A ``NetCore/TransportError`` of this kind.
        case transport(TransportError.Kind)
        /// A ``NetCore/TransportError`` of this kind that is not transient although the kind usually is: a response
        /// refused because the same bytes would come again (``NetCore/ContentCoding``).
        case refused(TransportError.Kind)
        /// A `DecodingError` of the response body.
        case decoding
        /// Anything else: the error's type and text.
        case other(String)

        package var description: String {
            switch self {
            case .response(let status, let body): "\(status) \"\(body.prefix(40))\""
            case .transport(let kind): "TransportError.\(kind)"
            case .refused(let kind): "TransportError.\(kind), not transient"
            case .decoding: "DecodingError"
            case .other(let text): text
            }
        }
    }

    /// One misbehaving server.
    package struct Row: Sendable {
        /// The row's name in the table.
        package let name: String
        /// What the server answers, byte for byte, or through a handler.
        package let answer: Answer
        /// Whether the row decodes the body as JSON instead of reading it as text.
        package var decodesJSON = false

        package enum Answer: Sendable {
            case raw([UInt8])
            case handler(@Sendable (LoopbackRequest) -> LoopbackResponse)
        }
    }

    private static func raw(_ name: String, _ text: String) -> Row {
        Row(name: name, answer: .raw(Array(text.utf8)))
    }

    /// A head cut off in the middle, then the connection closed. FoundationNetworking (Swift 6.3.1) stops the whole
    /// process on it ("Transfer completed, but there's no response."), so it is not among ``rows``: run it only
    /// against a transport that survives it.
    package static let cutMidHead = raw("head cut off mid-way", "HTTP/1.1 200 OK\r\nContent-Le")

    /// Every row that any transport survives.
    package static let rows: [Row] = [
        raw("closed before the head", ""),
        raw("garbage instead of a head", "SSH-2.0-OpenSSH_9.2\r\n"),
        raw("HTTP/0.9 (a body without a head)", "hello world"),
        raw(
            "conflicting Content-Length",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!"),
        raw(
            "malformed chunking",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZ\r\n"),
        raw("body longer than its Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhello"),
        raw(
            "1xx interim response (103 Early Hints)",
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        raw(
            "1 MiB of headers",
            "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 1 << 20)
                + "\r\nContent-Length: 2\r\n\r\nok"),
        Row(
            name: "corrupt gzip",
            answer: .raw(
                Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 14\r\n\r\n".utf8)
                    + [0x1F, 0x8B, 0x08, 0x00] + Array("garbage!!!".utf8))),
        coded("gzip, gzip", GzipZeros.stored(GzipZeros.stored(Data("ok".utf8)))),
        coded("identity, gzip", GzipZeros.stored(Data("ok".utf8))),
        coded("x-gzip", GzipZeros.stored(Data("ok".utf8))),
        // "hello" in brotli, which libcurl decodes and SwiftNIO does not: NetKit refuses it on both.
        coded("br", Data([0x40, 0x00, 0x10]) + Data("hello".utf8) + Data([0x03])),
        coded("zstd", Data("ok".utf8)),
        coded("compress", Data("ok".utf8)),
        coded("netkit-unknown", Data("ok".utf8)),
        // About 130 KiB that inflate to 20 MiB (160 times): past the ratio of 100 on both transports.
        Row(
            name: "gzip bomb",
            answer: .raw(
                Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n".utf8)
                    + Array(bomb))),
        Row(
            name: "redirect loop",
            answer: .handler { request in
                LoopbackResponse(status: 302, headers: [("Location", request.path == "/a" ? "/b" : "/a")])
            }),
        Row(
            name: "JSON nested 100,000 deep",
            answer: .handler { _ in
                .json(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
            },
            decodesJSON: true),
    ]

    /// 130 KiB of gzip that inflate to 20 MiB.
    private static let bomb = GzipZeros.make()

    /// A 200 whose body is `body` in `coding`, as a `Content-Encoding: <coding>` row.
    private static func coded(_ coding: String, _ body: Data) -> Row {
        Row(
            name: "Content-Encoding: \(coding)",
            answer: .raw(
                Array("HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
                    + Array(body)))
    }

    private struct Get: Endpoint {
        typealias Response = Data
        var path: String { "/a" }
        var method: HTTPMethod { .get }
    }

    private struct GetJSON: Endpoint {
        typealias Response = JSONValue
        var path: String { "/a" }
        var method: HTTPMethod { .get }
    }

    /// Runs `row` against `transport` and says how it ended.
    package static func run(_ row: Row, on transport: any HTTPTransport) async throws -> Outcome {
        let baseURL: URL
        let stop: @Sendable () -> Void
        switch row.answer {
        case .raw(let bytes):
            let server = try LoopbackRawServer(response: bytes)
            (baseURL, stop) = (server.baseURL, { server.stop() })
        case .handler(let handler):
            let server = try LoopbackServer(handler: handler)
            (baseURL, stop) = (server.baseURL, { server.stop() })
        }
        defer { stop() }
        let executor = RequestExecutor(transport: transport)
        do {
            if row.decodesJSON {
                _ = try await executor.send(GetJSON(), baseURL: baseURL)
                return .response(status: 200, body: "(decoded)")
            }
            let data = try await executor.send(Get(), baseURL: baseURL)
            return .response(status: 200, body: String(decoding: data, as: UTF8.self))
        } catch let error as TransportError {
            return error.kind.isTransient && !error.isTransient ? .refused(error.kind) : .transport(error.kind)
        } catch is DecodingError {
            return .decoding
        } catch {
            return .other("\(type(of: error)): \(error)")
        }
    }
}

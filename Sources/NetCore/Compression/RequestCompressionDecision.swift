/// What ``RequestCompressionPlugin`` does with one request's body, decided from the request alone: pure, so that
/// every rule is tested without compressing anything.
package enum RequestCompressionDecision: Equatable, Sendable {
    /// Why a body is sent as it is.
    package enum Reason: Equatable, Sendable {
        /// The request has no body.
        case noBody
        /// The request names its own `Content-Encoding`: its body is encoded already, or the caller chose not to
        /// have it encoded. Encoding it again would send something the field does not describe.
        case alreadyEncoded
        /// The body is smaller than the plugin's minimum: a few hundred bytes gain little, and a compressed body
        /// costs the server a decoder.
        case belowMinimum
    }

    /// Send the body as it is.
    case leave(Reason)
    /// Every byte is in memory: compress it into one run of memory. `offThread`: the body is large enough that
    /// compressing it would hold a thread of the cooperative pool for long, so it runs on a thread of its own.
    case inMemory(offThread: Bool)
    /// Files or streams: compress them piece by piece, on a thread of its own (reads block), into a temporary file.
    case toFile

    /// 256 KiB: the largest body in memory compressed on the caller's thread. zlib's default level takes about a
    /// millisecond per 100 KiB of JSON (three for text that compresses poorly), so the cooperative pool is held a
    /// few milliseconds at most.
    package static let inlineLimit: Int64 = 256 * 1024

    /// The decision for a request with `body`.
    /// - Parameters:
    ///   - body: The request's body; `nil` for a request without one.
    ///   - hasContentEncoding: Whether the request has a `Content-Encoding` field, whatever its value.
    ///   - minimumBytes: The smallest body compressed. A stream of unknown length is compressed whatever its size:
    ///     only reading it would tell, and then it could no longer be sent as it was.
    package init(body: UploadSource?, hasContentEncoding: Bool, minimumBytes: Int64) {
        guard let body else {
            self = .leave(.noBody)
            return
        }
        if hasContentEncoding {
            self = .leave(.alreadyEncoded)
            return
        }
        let length = body.length
        if let length, length < minimumBytes {
            self = .leave(.belowMinimum)
            return
        }
        let allInMemory = body.segments.allSatisfy { segment in
            if case .data = segment { true } else { false }
        }
        guard allInMemory, let length else {
            self = .toFile
            return
        }
        self = .inMemory(offThread: length > Self.inlineLimit)
    }
}

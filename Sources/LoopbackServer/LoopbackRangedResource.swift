import Foundation
import NetKitDigest
import NetKitLock

/// One downloadable resource of ``byteCount`` bytes of ``LoopbackBodyPattern`` that answers range requests, so tests
/// of resumable downloads have a server to resume against (RFC 9110 §14: `Range`, `If-Range`, 206, 416,
/// `Content-Range`, `Accept-Ranges`; RFC 9530: `Repr-Digest`, `Content-Digest`).
///
/// It answers `GET` and `HEAD` (anything else gets 405). Every response carries `ETag: "v1"`, a fixed
/// `Last-Modified`, `Accept-Ranges: bytes` and `Content-Type: application/octet-stream` unless a knob says otherwise.
/// A `GET` with one satisfiable byte range (`bytes=a-`, `bytes=a-b`, `bytes=-n`) gets a 206 with that slice; a range
/// starting at or past the end gets a 416 with `Content-Range: bytes */N`; several ranges, another unit or an
/// unparsable value are ignored (200 with the whole body), as RFC 9110 §14.2 allows. `If-Range` lets the range through
/// only if it is the current strong `ETag` byte for byte, or exactly the `Last-Modified` date; a weak tag never
/// matches (§13.1.5). `HEAD` ignores `Range`, since range handling is defined for `GET` only (§14.2).
///
/// Bodies are streamed with `Content-Length` framing from the pattern's shared block
/// (``LoopbackBodyWriter/writePattern(from:byteCount:)``), so a 1 GiB resource costs the server no memory.
///
/// The knobs (``etag``, ``cuts``, ``truncatesTo``…) are read once per request, so a test changes them between
/// requests; ``requests`` logs what each request asked for and what it got. All of it is thread-safe: connections
/// answer on threads of their own.
///
/// ```swift
/// let resource = LoopbackRangedResource(byteCount: 1 << 30)
/// let server = try LoopbackServer { request in resource.respond(to: request) }
/// defer { server.stop() }
/// resource.cuts = [4096]  // the first response breaks off after 4 KiB
/// // … download from server.baseURL; the client resumes with `Range: bytes=4096-` and `If-Range: "v1"` …
/// #expect(resource.requests.map(\.status) == [200, 206])
/// #expect(resource.bodyBytesSent == 1 << 30)
/// ```
package final class LoopbackRangedResource: Sendable {
    /// What one request asked for and what it was answered, so a test can check how a client resumed.
    package struct Seen: Sendable, Equatable {
        /// The request's method, as sent.
        package var method: String
        /// The `Range` value received (several fields joined with `, `), or `nil` if there was none.
        package var range: String?
        /// The `If-Range` value received (several fields joined with `, `), or `nil` if there was none.
        package var ifRange: String?
        /// The status sent: 200, 206, 416, or 405 for a method other than `GET` and `HEAD`.
        package var status: Int
        /// The `Content-Length` the response declared: what a complete body would have held.
        package var declaredLength: Int
        /// Body bytes the server handed to the socket: less than ``declaredLength`` after a cut or truncation, 0 for
        /// `HEAD`. Set before the bytes leave, so it is up to date once the client has them, and lowered to what the
        /// socket took if a write fails.
        package var bodyBytesSent: Int
        /// Of ``bodyBytesSent``, the bytes that reached the client's machine: fewer when the client went away with
        /// bytes still in the server's kernel, which its reset discarded (see ``LoopbackBodyWriter/bytesDelivered``).
        package var bodyBytesDelivered: Int
        /// The request target, path and query as sent (`/file?signature=b`).
        package var target: String

        /// Creates an entry, mainly to build expected values in tests.
        package init(
            method: String, range: String?, ifRange: String?, status: Int, declaredLength: Int, bodyBytesSent: Int,
            bodyBytesDelivered: Int? = nil, target: String = "/"
        ) {
            self.method = method
            self.range = range
            self.ifRange = ifRange
            self.status = status
            self.declaredLength = declaredLength
            self.bodyBytesSent = bodyBytesSent
            self.bodyBytesDelivered = bodyBytesDelivered ?? bodyBytesSent
            self.target = target
        }
    }

    /// The `ETag` a new resource has: strong, so a range may be resumed against it.
    package static let defaultETag = "\"v1\""

    /// The `Last-Modified` a new resource has: a fixed IMF-fixdate, so tests can send it back in `If-Range`.
    package static let defaultLastModified = "Sat, 01 Jan 2000 00:00:00 GMT"

    /// The settings a test changes between requests; each response reads them once.
    private struct Knobs {
        var etag: String? = LoopbackRangedResource.defaultETag
        var lastModified: String? = LoopbackRangedResource.defaultLastModified
        var acceptsRanges = true
        var ignoresRanges = false
        var sendsReprDigest = false
        var sendsContentDigest = false
        var cuts: [Int] = []
        var truncatesTo: Int?
        var corruptsByteAt: Int?
    }

    /// Everything mutable, behind the one lock.
    private struct State {
        var knobs = Knobs()
        var requests: [Seen] = []
        /// The `Repr-Digest` value, computed the first time it is needed: hashing a huge resource takes a while.
        var reprDigest: String?
    }

    /// What part of the representation a request gets.
    private enum Selection: Equatable {
        /// 200 with the whole representation.
        case full
        /// 206 with bytes `first...last`.
        case slice(first: Int, last: Int)
        /// 416: no byte of the range exists.
        case unsatisfiable
    }

    /// One byte range as a `Range` field asks for it, before the representation's length is applied.
    private enum RangeSpec: Equatable {
        /// `first-` or `first-last`.
        case from(Int, through: Int?)
        /// `-count`: the last `count` bytes.
        case suffix(Int)
    }

    /// The representation's length in bytes.
    package let byteCount: Int

    private let state = Lock(State())

    /// A resource of `byteCount` bytes of ``LoopbackBodyPattern`` (negative counts as 0), with the default validators
    /// and ranges accepted.
    package init(byteCount: Int) {
        self.byteCount = max(byteCount, 0)
    }

    // MARK: - Knobs

    /// The `ETag` sent, `nil` for none. Change it to simulate a changed resource (an `If-Range` with the old tag then
    /// gets the whole body), or set `W/"v1"` to check that a weak tag never lets a range through.
    package var etag: String? {
        get { state.withLock { $0.knobs.etag } }
        set { state.withLock { $0.knobs.etag = newValue } }
    }

    /// The `Last-Modified` sent, `nil` for none; an `If-Range` date matches only if it is exactly this text.
    package var lastModified: String? {
        get { state.withLock { $0.knobs.lastModified } }
        set { state.withLock { $0.knobs.lastModified = newValue } }
    }

    /// Whether the server supports ranges (default `true`). When `false` it sends no `Accept-Ranges` and ignores
    /// `Range`: a server that cannot resume.
    package var acceptsRanges: Bool {
        get { state.withLock { $0.knobs.acceptsRanges } }
        set { state.withLock { $0.knobs.acceptsRanges = newValue } }
    }

    /// When `true` the server still advertises `Accept-Ranges: bytes` but answers every range with 200 and the whole
    /// body, as RFC 9110 lets it: a client must notice it did not get the 206 it asked for.
    package var ignoresRanges: Bool {
        get { state.withLock { $0.knobs.ignoresRanges } }
        set { state.withLock { $0.knobs.ignoresRanges = newValue } }
    }

    /// When `true`, 200 and 206 responses carry `Repr-Digest: sha-256=:…:`, the SHA-256 of the whole representation
    /// (RFC 9530), whatever slice they hold: what a client checks a resumed download against. Computed once.
    package var sendsReprDigest: Bool {
        get { state.withLock { $0.knobs.sendsReprDigest } }
        set { state.withLock { $0.knobs.sendsReprDigest = newValue } }
    }

    /// When `true`, 200 and 206 responses carry `Content-Digest: sha-256=:…:`, the SHA-256 of the content that
    /// response declares: the slice for a 206 (RFC 9530). It is of the true bytes, so with ``corruptsByteAt`` or a
    /// cut the client's check fails.
    package var sendsContentDigest: Bool {
        get { state.withLock { $0.knobs.sendsContentDigest } }
        set { state.withLock { $0.knobs.sendsContentDigest = newValue } }
    }

    /// Cuts to come, first first: each `GET` answered with a body (200 or 206) takes the first value, if any, and
    /// the connection is dropped after that many body bytes of the response (the client sees a body shorter than its
    /// `Content-Length`). A value at or past the response's length is used up but cuts nothing. `HEAD`, 416 and 405
    /// responses take none.
    package var cuts: [Int] {
        get { state.withLock { $0.knobs.cuts } }
        set { state.withLock { $0.knobs.cuts = newValue } }
    }

    /// When set, every response with a body sends at most this many body bytes and then drops the connection: a
    /// server that truncates again on every resumption. Shorter bodies go out whole.
    package var truncatesTo: Int? {
        get { state.withLock { $0.knobs.truncatesTo } }
        set { state.withLock { $0.knobs.truncatesTo = newValue } }
    }

    /// When set, the byte at this offset of the representation is sent with every bit inverted, in any response whose
    /// body covers it, while lengths and digests stay those of the true bytes: for checksum-mismatch tests.
    package var corruptsByteAt: Int? {
        get { state.withLock { $0.knobs.corruptsByteAt } }
        set { state.withLock { $0.knobs.corruptsByteAt = newValue } }
    }

    // MARK: - Log

    /// Every request answered, in order.
    package var requests: [Seen] { state.withLock { $0.requests } }

    /// Body bytes sent in all responses together: how a test checks that a client resumed instead of starting over.
    package var bodyBytesSent: Int { state.withLock { $0.requests.reduce(0) { $0 + $1.bodyBytesSent } } }

    // MARK: - Answering

    /// The answer to `request`; a ``LoopbackServer`` handler returns it as is:
    /// `LoopbackServer { request in resource.respond(to: request) }`.
    ///
    /// Reads the knobs once, takes a cut if one is due, and logs the request before returning.
    package func respond(to request: LoopbackRequest) -> LoopbackResponse {
        let rangeValues = request.headerValues("Range")
        let ifRangeValues = request.headerValues("If-Range")
        let range = rangeValues.isEmpty ? nil : rangeValues.joined(separator: ", ")
        let ifRange = ifRangeValues.isEmpty ? nil : ifRangeValues.joined(separator: ", ")
        let method = request.method
        let length = byteCount

        guard method == "GET" || method == "HEAD" else {
            let seen = Seen(
                method: method, range: range, ifRange: ifRange, status: 405, declaredLength: 0, bodyBytesSent: 0,
                target: request.target)
            state.withLock { $0.requests.append(seen) }
            return LoopbackResponse(status: 405, headers: [(name: "Allow", value: "GET, HEAD")])
        }

        let (knobs, selection, cut, index) = state.withLock { state in
            let knobs = state.knobs
            // Range handling is defined for GET only (RFC 9110 §14.2).
            let selection =
                method == "GET" && knobs.acceptsRanges && !knobs.ignoresRanges
                ? self.select(range: range, ifRange: ifRange, etag: knobs.etag, lastModified: knobs.lastModified)
                : .full
            var cut: Int?
            if method == "GET" && selection != .unsatisfiable && !state.knobs.cuts.isEmpty {
                cut = state.knobs.cuts.removeFirst()
            }
            let (status, declared) =
                switch selection {
                case .full: (200, length)
                case let .slice(first, last): (206, last - first + 1)
                case .unsatisfiable: (416, 0)
                }
            state.requests.append(
                Seen(
                    method: method, range: range, ifRange: ifRange, status: status, declaredLength: declared,
                    bodyBytesSent: 0, target: request.target))
            return (knobs, selection, cut, state.requests.count - 1)
        }

        var headers: [(name: String, value: String)] = []
        if let etag = knobs.etag { headers.append((name: "ETag", value: etag)) }
        if let lastModified = knobs.lastModified { headers.append((name: "Last-Modified", value: lastModified)) }
        if knobs.acceptsRanges { headers.append((name: "Accept-Ranges", value: "bytes")) }
        headers.append((name: "Content-Type", value: "application/octet-stream"))

        let status: Int
        let first: Int
        let count: Int
        switch selection {
        case .unsatisfiable:
            headers.append((name: "Content-Range", value: "bytes */\(length)"))
            return LoopbackResponse(status: 416, headers: headers)
        case .full:
            (status, first, count) = (200, 0, length)
        case let .slice(sliceFirst, last):
            (status, first, count) = (206, sliceFirst, last - sliceFirst + 1)
            headers.append((name: "Content-Range", value: "bytes \(sliceFirst)-\(last)/\(length)"))
        }
        if knobs.sendsReprDigest { headers.append((name: "Repr-Digest", value: reprDigest())) }
        if knobs.sendsContentDigest {
            let value = status == 200 ? reprDigest() : Self.digestValue(Self.patternSHA256(from: first, count: count))
            headers.append((name: "Content-Digest", value: value))
        }

        let planned = max(0, min(count, cut ?? .max, knobs.truncatesTo ?? .max))
        let corrupt = knobs.corruptsByteAt
        return .streamed(status: status, headers: headers, framing: .contentLength(count)) { writer in
            // The server runs this for GET only, after the head has gone out.
            self.record(sent: planned, delivered: planned, at: index)
            Self.writeBody(writer, from: first, count: planned, corrupting: corrupt)
            if planned < count { writer.abort() }
            self.record(sent: writer.bytesWritten, delivered: writer.bytesDelivered, at: index)
        }
    }

    // MARK: - Private

    /// Sets how many body bytes the response logged at `index` sent, and how many of them reached the client.
    private func record(sent: Int, delivered: Int, at index: Int) {
        state.withLock {
            $0.requests[index].bodyBytesSent = sent
            $0.requests[index].bodyBytesDelivered = delivered
        }
    }

    /// The `Repr-Digest` value, computed on first use (outside the lock: hashing a big resource takes a while, and
    /// two threads racing to it compute the same value).
    private func reprDigest() -> String {
        if let cached = state.withLock({ $0.reprDigest }) { return cached }
        let value = Self.digestValue(Self.patternSHA256(from: 0, count: byteCount))
        state.withLock { $0.reprDigest = value }
        return value
    }

    /// Which part of the representation a `GET` gets, given its `Range` and `If-Range` values: the range if there is
    /// exactly one valid byte range and `If-Range`, if any, holds. A failed `If-Range` means the range is ignored
    /// before its satisfiability is looked at (RFC 9110 §13.2.2).
    private func select(range: String?, ifRange: String?, etag: String?, lastModified: String?) -> Selection {
        guard let range, let spec = Self.parseSingleByteRange(range) else { return .full }
        if let ifRange, !Self.ifRangeHolds(ifRange, etag: etag, lastModified: lastModified) { return .full }
        switch spec {
        case let .from(first, last):
            guard first < byteCount else { return .unsatisfiable }
            return .slice(first: first, last: min(last ?? byteCount - 1, byteCount - 1))
        case let .suffix(count):
            guard count > 0 else { return .unsatisfiable }
            // Satisfiable but empty (RFC 9110 §14.1.1): no Content-Range can name it, so the whole, empty, body.
            guard byteCount > 0 else { return .full }
            return .slice(first: max(byteCount - count, 0), last: byteCount - 1)
        }
    }

    /// Whether an `If-Range` value lets the range through (RFC 9110 §13.1.5): a strong tag equal byte for byte to
    /// the current strong `ETag`, or a date equal to `Last-Modified` exactly. A weak tag on either side never matches.
    private static func ifRangeHolds(_ value: String, etag: String?, lastModified: String?) -> Bool {
        if value.hasPrefix("W/") { return false }
        if value.hasPrefix("\"") {
            guard let etag, !etag.hasPrefix("W/") else { return false }
            return value.utf8.elementsEqual(etag.utf8)
        }
        guard let lastModified else { return false }
        return value.utf8.elementsEqual(lastModified.utf8)
    }

    /// The one byte range a `Range` value asks for, or `nil` when it must be ignored: another unit, several ranges,
    /// or a malformed or backwards one (RFC 9110 §14.1.1; the unit is case-insensitive, empty list elements are
    /// skipped, numbers too large for an `Int` count as `Int.max`).
    private static func parseSingleByteRange(_ value: String) -> RangeSpec? {
        let bytes = Array(value.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let unit = String(decoding: trimmingWhitespace(bytes[..<equals]), as: UTF8.self)
        guard unit.lowercased() == "bytes" else { return nil }
        let specs = bytes[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map(trimmingWhitespace).filter { !$0.isEmpty }
        guard specs.count == 1, let spec = specs.first, let dash = spec.firstIndex(of: UInt8(ascii: "-")) else {
            return nil
        }
        let before = spec[..<dash]
        let after = spec[(dash + 1)...]
        if before.isEmpty {
            guard let count = decimal(after) else { return nil }
            return .suffix(count)
        }
        guard let first = decimal(before) else { return nil }
        if after.isEmpty { return .from(first, through: nil) }
        guard let last = decimal(after), last >= first else { return nil }
        return .from(first, through: last)
    }

    /// `digits` (1*DIGIT) as a number, saturating at `Int.max`; `nil` if empty or not all digits.
    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? .max : sum
        }
        return value
    }

    /// `bytes` without leading and trailing spaces and tabs (HTTP's OWS).
    private static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isWhitespace($0) }),
            let end = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[start...end]
    }

    /// Writes the pattern bytes `start..<start + count`, the one at `corrupt` (if among them) inverted.
    private static func writeBody(_ writer: LoopbackBodyWriter, from start: Int, count: Int, corrupting corrupt: Int?) {
        guard let corrupt, corrupt >= start, corrupt < start + count else {
            writer.writePattern(from: start, byteCount: count)
            return
        }
        guard writer.writePattern(from: start, byteCount: corrupt - start),
            writer.write([~LoopbackBodyPattern.byte(at: corrupt)])
        else { return }
        writer.writePattern(from: corrupt + 1, byteCount: start + count - corrupt - 1)
    }

    /// The SHA-256 of the pattern bytes `start..<start + count`, hashed from the shared block without building them.
    package static func patternSHA256(from start: Int, count: Int) -> [UInt8] {
        var hasher = SHA256()
        LoopbackBodyPattern.block.withUnsafeBytes { block in
            var position = max(start, 0)
            var remaining = max(count, 0)
            // Each round hashes a non-empty piece, so rounds ≤ count / pieceSize + 1.
            while remaining > 0 {
                let phase = position % LoopbackBodyPattern.period
                let size = min(remaining, LoopbackBodyPattern.pieceSize)
                hasher.update(buffer: UnsafeRawBufferPointer(rebasing: block[phase..<(phase + size)]))
                position += size
                remaining -= size
            }
        }
        return hasher.finalize()
    }

    /// A digest as an RFC 9530 field value: `sha-256=:<base64>:`.
    private static func digestValue(_ digest: [UInt8]) -> String {
        "sha-256=:\(Data(digest).base64EncodedString()):"
    }
}

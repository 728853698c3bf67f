#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NetKitDigest

/// The strict `multipart/form-data` rules of ``MultipartFormParser``, applied to a body that
/// arrives in pieces of any size and is never held whole: each part is summarised (size and
/// SHA-256) as its bytes pass.
///
/// A delimiter, a part header line or the close delimiter may be split across pieces at any
/// byte. Only what a decision still needs is carried from one piece to the next: the bytes after
/// the last possible delimiter start (fewer than the delimiter's length), or an unfinished header
/// line. The first defect found is the same, at the same offset, as the whole-body parser
/// reports, except for a part header section longer than ``maxHeaderSectionBytes``, which only
/// this parser rejects (as `malformedPartHeader`), to stay bounded.
struct StreamingMultipartParser {
    /// Largest header section (all lines of one part, CRLFs included) kept while it is parsed.
    static let maxHeaderSectionBytes = 64 * 1024

    private enum Phase {
        /// Expecting the dash-boundary that must open the body.
        case opening
        /// Just past a boundary: `--` (close) or CRLF (a part follows).
        case afterDelimiter
        case headers
        case data
        /// After the close delimiter: only one CRLF may follow.
        case epilogue
        case failed(LoopbackMultipartError)
    }

    /// The part being read: what its headers said (or the defect, reported once its end is found,
    /// as the whole-body parser does), and the running summary of its content.
    private struct OpenPart {
        let description: Result<MultipartFormParser.PartDescription, LoopbackMultipartError>
        var hasher = SHA256()
        var byteCount = 0
    }

    private let dashBoundary: [UInt8]
    /// CRLF + dash-boundary: what ends a part's content.
    private let delimiter: [UInt8]
    private var phase: Phase = .opening
    /// Unconsumed bytes carried over to the next piece.
    private var pending: [UInt8] = []
    /// Body offset of the first unconsumed byte (`pending[0]` when there is one).
    private var offset = 0
    private var parts: [LoopbackMultipartPartDigest] = []
    private var headers: [(name: String, value: String)] = []
    private var headerSectionBytes = 0
    private var part: OpenPart?
    private var epilogueBytes = 0

    /// Starts a parser for `boundary` (already validated).
    init(boundary: String) {
        dashBoundary = Array("--\(boundary)".utf8)
        delimiter = [0x0D, 0x0A] + dashBoundary
    }

    /// Consumes the next piece of the body.
    mutating func update(_ input: UnsafeRawBufferPointer) {
        if case .failed = phase { return }
        guard !input.isEmpty else { return }
        if pending.isEmpty {
            let consumed = process(input)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[consumed...]))
        } else {
            // The carried bytes are few; joining them to the piece lets one code path see both.
            var joined = pending
            pending = []
            joined.append(contentsOf: input)
            let consumed = joined.withUnsafeBytes { process($0) }
            pending = Array(joined[consumed...])
        }
        if case .failed = phase { pending = [] }
    }

    /// The parts, or the first defect, once the body is complete.
    func finish() -> Result<[LoopbackMultipartPartDigest], LoopbackMultipartError> {
        switch phase {
        case let .failed(error): return .failure(error)
        case .opening: return .failure(.missingOpeningDelimiter)
        case .afterDelimiter:
            // One byte left cannot be `--` or CRLF; none at all means the body just stopped.
            return .failure(pending.isEmpty ? .missingCloseDelimiter : .malformedDelimiter(offset: offset))
        case .headers: return .failure(.malformedPartHeader(offset: offset))
        case .data: return .failure(.missingCloseDelimiter)
        case .epilogue: return epilogueBytes == 1 ? .failure(.unexpectedEpilogue) : .success(parts)
        }
    }

    // MARK: - Processing

    /// Consumes what it can decide on from `bytes` (which start at `offset`) and returns how many
    /// bytes that was; the rest must be offered again with more.
    private mutating func process(_ bytes: UnsafeRawBufferPointer) -> Int {
        var index = 0
        // Every round consumes bytes, changes phase, or returns; phases cycle only through consumption.
        while true {
            let available = bytes.count - index
            switch phase {
            case .failed:
                return bytes.count
            case .opening:
                let compared = min(available, dashBoundary.count)
                guard Self.equal(bytes, index, dashBoundary, 0, compared) else {
                    fail(.missingOpeningDelimiter)
                    return bytes.count
                }
                guard compared == dashBoundary.count else { return index }
                advance(&index, by: dashBoundary.count)
                phase = .afterDelimiter
            case .afterDelimiter:
                guard available >= 1 else { return index }
                let first = bytes[index]
                guard first == 0x2D || first == 0x0D else {
                    fail(.malformedDelimiter(offset: offset))
                    return bytes.count
                }
                guard available >= 2 else { return index }
                let second = bytes[index + 1]
                if first == 0x2D && second == 0x2D {
                    guard !parts.isEmpty else {
                        fail(.malformedDelimiter(offset: offset))
                        return bytes.count
                    }
                    advance(&index, by: 2)
                    phase = .epilogue
                } else if first == 0x0D && second == 0x0A {
                    advance(&index, by: 2)
                    headers = []
                    headerSectionBytes = 0
                    phase = .headers
                } else {
                    fail(.malformedDelimiter(offset: offset))
                    return bytes.count
                }
            case .headers:
                guard let lineEnd = Self.findCRLF(bytes, from: index) else {
                    if headerSectionBytes + available > Self.maxHeaderSectionBytes {
                        fail(.malformedPartHeader(offset: offset))
                        return bytes.count
                    }
                    return index
                }
                let lineLength = lineEnd - index
                headerSectionBytes += lineLength + 2
                guard headerSectionBytes <= Self.maxHeaderSectionBytes else {
                    fail(.malformedPartHeader(offset: offset))
                    return bytes.count
                }
                if lineLength == 0 {
                    advance(&index, by: 2)
                    part = OpenPart(
                        description: Result { () throws(LoopbackMultipartError) in
                            try MultipartFormParser.describe(headers: headers)
                        })
                    phase = .data
                    continue
                }
                let line = ArraySlice(UnsafeRawBufferPointer(rebasing: bytes[index..<lineEnd]))
                do {
                    headers.append(try MultipartFormParser.headerField(line, offset: offset))
                } catch {
                    fail(error)
                    return bytes.count
                }
                advance(&index, by: lineLength + 2)
            case .data:
                switch Self.findDelimiter(delimiter, in: bytes, from: index) {
                case let .found(at):
                    take(bytes, from: index, to: at)
                    advance(&index, by: at - index + delimiter.count)
                    guard let finished = part else { return bytes.count }
                    part = nil
                    switch finished.description {
                    case let .failure(error):
                        fail(error)
                        return bytes.count
                    case let .success(description):
                        parts.append(
                            LoopbackMultipartPartDigest(
                                name: description.name,
                                filename: description.filename,
                                contentType: description.contentType,
                                byteCount: finished.byteCount,
                                sha256: SHA256.hex(finished.hasher.finalize())
                            ))
                    }
                    phase = .afterDelimiter
                case let .partial(at):
                    // Bytes from `at` may begin a delimiter: keep them until more arrive.
                    take(bytes, from: index, to: at)
                    advance(&index, by: at - index)
                    return index
                }
            case .epilogue:
                for position in index..<bytes.count {
                    epilogueBytes += 1
                    let expected: UInt8 = epilogueBytes == 1 ? 0x0D : 0x0A
                    guard epilogueBytes <= 2, bytes[position] == expected else {
                        fail(.unexpectedEpilogue)
                        return bytes.count
                    }
                }
                advance(&index, by: available)
                return index
            }
        }
    }

    private mutating func advance(_ index: inout Int, by count: Int) {
        index += count
        offset += count
    }

    /// Hashes `bytes[start..<end]` as content of the open part.
    private mutating func take(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        guard end > start else { return }
        part?.hasher.update(buffer: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        part?.byteCount += end - start
    }

    private mutating func fail(_ error: LoopbackMultipartError) {
        phase = .failed(error)
        part = nil
        headers = []
    }

    // MARK: - Searching

    private enum DelimiterSearch {
        /// A whole delimiter starts here.
        case found(Int)
        /// No whole delimiter; from here to the end the bytes could begin one (the end if they cannot).
        case partial(Int)
    }

    /// Looks for `delimiter` (which starts with CR) from `start`, jumping between CRs with `memchr`.
    private static func findDelimiter(_ delimiter: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int)
        -> DelimiterSearch
    {
        guard let base = bytes.baseAddress else { return .partial(start) }
        var position = start
        // Each round moves past one CR, so rounds ≤ bytes.count.
        while position < bytes.count {
            guard let found = memchr(base + position, 0x0D, bytes.count - position) else { break }
            let candidate = UnsafeRawPointer(found) - base
            let available = min(delimiter.count, bytes.count - candidate)
            if equal(bytes, candidate, delimiter, 0, available) {
                return available == delimiter.count ? .found(candidate) : .partial(candidate)
            }
            position = candidate + 1
        }
        return .partial(bytes.count)
    }

    /// Index of the next CRLF at or after `start`.
    private static func findCRLF(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var position = start
        // Each round moves past one CR, so rounds ≤ bytes.count.
        while position < bytes.count {
            guard let found = memchr(base + position, 0x0D, bytes.count - position) else { return nil }
            let candidate = UnsafeRawPointer(found) - base
            guard candidate + 1 < bytes.count else { return nil }
            if bytes[candidate + 1] == 0x0A { return candidate }
            position = candidate + 1
        }
        return nil
    }

    /// Whether `count` bytes of `bytes` from `start` equal those of `pattern` from `patternStart`.
    private static func equal(
        _ bytes: UnsafeRawBufferPointer, _ start: Int, _ pattern: [UInt8], _ patternStart: Int, _ count: Int
    ) -> Bool {
        guard count > 0 else { return true }
        return pattern.withUnsafeBytes { pattern in
            memcmp(bytes.baseAddress! + start, pattern.baseAddress! + patternStart, count) == 0
        }
    }
}

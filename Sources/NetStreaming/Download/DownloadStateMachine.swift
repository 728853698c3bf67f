import NetCore
import NetKitDigest

/// The decisions of one download, without I/O: what to ask the server for, what each answer means for the bytes
/// already on disk, and when the file is complete. `RequestExecutor.download` carries them out.
///
/// The bytes on disk are always a prefix of one version of the resource, written in order; everything here keeps
/// that true. A response that cannot continue them (another version, another length, a range that does not start
/// where the file ends) makes the machine forget what it knew and ask for the whole resource again.
struct DownloadStateMachine: Sendable {
    /// What the machine knows of the resource (its `bytesOnDisk` is updated by the caller when it saves it).
    private(set) var state: DownloadResumeState

    /// What a request asks for.
    enum Ask: Sendable, Equatable {
        /// The whole resource, from byte 0.
        case whole
        /// The bytes from `offset` on, if the resource is still the version `ifRange` names.
        case rest(from: Int64, ifRange: String)
    }

    /// What to do with a response.
    enum Verdict: Sendable, Equatable {
        /// Write the body at `offset`, the file cut there first (0: the whole resource comes again). `length`: the
        /// bytes the body carries, when known; `partSHA256`: the digest they must have (`Content-Digest`).
        case write(from: Int64, length: Int64?, partSHA256: [UInt8]?)
        /// The file already holds the whole resource: nothing to write.
        case complete
        /// The answer does not fit the bytes on disk: forget them and ask for the whole resource.
        case askAgain
    }

    /// What the next request asks for, with `bytesOnDisk` in the partial file.
    func ask(bytesOnDisk: Int64) -> Ask {
        guard bytesOnDisk > 0, state.acceptsRanges, let validator = state.validator else { return .whole }
        return .rest(from: bytesOnDisk, ifRange: validator.ifRangeValue)
    }

    /// Judges the head of a successful (2xx) response to `asked`.
    /// - Throws: ``DownloadError/unusableResponse(reason:)`` for a 206 that was not asked for or names no part.
    mutating func judge(_ head: HTTPResponseHead, asked: Ask, checksDigests: Bool) throws(DownloadError) -> Verdict {
        guard head.statusCode == 206 else { return judgeWhole(head, checksDigests: checksDigests) }
        guard case .rest(let offset, _) = asked else {
            throw .unusableResponse(reason: "it sent part of the resource (206) where the whole was asked for")
        }
        guard let value = head.headerFields.value(for: "Content-Range"), let range = ContentRange(value),
            let part = range.part
        else {
            throw .unusableResponse(reason: "its 206 names no byte range in Content-Range")
        }
        let sameVersion =
            part.lowerBound == offset
            && state.validator?.matches(entityTag: head.headerFields.value(for: "ETag")) ?? false
            && (range.completeLength == nil || state.totalBytes == nil || range.completeLength == state.totalBytes)
        let announced = checksDigests ? head.headerFields.value(for: "Repr-Digest").flatMap(DigestFields.sha256) : nil
        let announcedHex = announced.map(SHA256.hex)
        guard sameVersion, announcedHex == nil || state.announcedSHA256 == nil || announcedHex == state.announcedSHA256
        else {
            forget()
            return .askAgain
        }
        state.totalBytes = range.completeLength ?? state.totalBytes
        state.announcedSHA256 = announcedHex ?? state.announcedSHA256
        let partDigest =
            checksDigests ? head.headerFields.value(for: "Content-Digest").flatMap(DigestFields.sha256) : nil
        return .write(from: offset, length: Int64(part.count), partSHA256: partDigest)
    }

    /// Judges a 416 to `asked` whose `Content-Range` is `contentRange`: the file is complete when the length the
    /// server names is the length on disk; otherwise the whole resource is asked for again.
    mutating func judgeUnsatisfiable(contentRange: String?, asked: Ask) -> Verdict {
        if case .rest(let offset, _) = asked, let contentRange, let range = ContentRange(contentRange),
            range.part == nil, range.completeLength == offset,
            state.totalBytes == nil || state.totalBytes == offset
        {
            state.totalBytes = offset
            return .complete
        }
        forget()
        return .askAgain
    }

    /// Whether a body that ended cleanly with `bytesOnDisk` in the file completes the download.
    /// - Throws: ``DownloadError/lengthMismatch(expected:actual:)`` when the file outgrew the announced length.
    func isComplete(bytesOnDisk: Int64) throws(DownloadError) -> Bool {
        guard let total = state.totalBytes else { return true }
        if bytesOnDisk > total { throw .lengthMismatch(expected: total, actual: bytesOnDisk) }
        return bytesOnDisk == total
    }

    /// Notes the bytes on disk, for the state saved and reported.
    mutating func note(bytesOnDisk: Int64) {
        state.bytesOnDisk = bytesOnDisk
    }

    /// A 2xx other than 206: the whole resource, which replaces whatever the file held. Its validator, length and
    /// digest are kept only when the body is the resource's own bytes (no content coding the transport undid).
    private mutating func judgeWhole(_ head: HTTPResponseHead, checksDigests: Bool) -> Verdict {
        let fields = head.headerFields
        let identity = fields.value(for: "Content-Encoding").map(Self.isIdentity) ?? true
        state = DownloadResumeState(partialFile: state.partialFile)
        guard identity else { return .write(from: 0, length: nil, partSHA256: nil) }
        state.validator = DownloadValidator.strongest(
            entityTag: fields.value(for: "ETag"), lastModified: fields.value(for: "Last-Modified"))
        state.totalBytes = head.declaredContentLength
        state.acceptsRanges = fields.values(for: "Accept-Ranges").contains { Self.namesBytes($0) }
        if checksDigests {
            // For a whole, unencoded response, its content is the representation: either digest covers the file.
            let digest =
                fields.value(for: "Repr-Digest").flatMap(DigestFields.sha256)
                ?? fields.value(for: "Content-Digest").flatMap(DigestFields.sha256)
            state.announcedSHA256 = digest.map(SHA256.hex)
        }
        return .write(from: 0, length: state.totalBytes, partSHA256: nil)
    }

    private mutating func forget() {
        state = DownloadResumeState(partialFile: state.partialFile)
    }

    /// Whether an `Accept-Ranges` value lists the `bytes` unit (case-insensitive, RFC 9110 §14.1).
    private static func namesBytes(_ value: String) -> Bool {
        value.split(separator: ",").contains { unit in
            let unit = unit.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            return unit.count == 5 && zip(unit.reversed(), "bytes".utf8).allSatisfy { $0 | 0x20 == $1 }
        }
    }

    private static func isIdentity(_ value: String) -> Bool {
        let trimmed = value.utf8.filter { $0 != 0x20 && $0 != 0x09 }
        return trimmed.isEmpty
            || (trimmed.count == 8 && zip(trimmed, "identity".utf8).allSatisfy { $0 | 0x20 == $1 })
    }
}

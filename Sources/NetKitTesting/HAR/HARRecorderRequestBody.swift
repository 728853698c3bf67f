import Foundation
import NetCore

/// Records a request's body without breaking the request: a body in memory is read where it is, a body that can be
/// read again (files, memory and files mixed) through a reader of its own in bounded pieces, and a single-use
/// stream, which only one reader can ever read, is first copied to a temporary file that then goes out in its place.
enum HARRecorderRequestBody {
    /// The size of the pieces a body is read in.
    private static let pieceSize = 64 * 1024

    /// Records the body of `request` for `exchange`; a stream body is replaced by its copy in a temporary file
    /// (`UploadSource(fileURL:)`, now with a known length: it goes out with `Content-Length` rather than chunked).
    /// - Throws: the stream's ``UploadSourceError`` (what the transport would have thrown reading it), or a
    ///   ``HARRecordingError`` when its temporary copy cannot be written. The request cannot be sent then.
    static func record(_ request: inout TransportRequest, for exchange: HARRecorderExchange) throws {
        guard let source = request.body else { return }
        let recorder = exchange.recorder
        let contentType = request.value(forHeader: "Content-Type")
        let body = HARRecorderBody(
            contentType: contentType, redaction: recorder.redaction, limit: recorder.inlineBodyLimit,
            file: recorder.bodyFile(slot: exchange.slot, part: "request"))
        var comment: String?
        var spool: URL?
        if let data = source.inMemoryData {
            body.append(data, at: nil)
        } else if source.isReplayable {
            do {
                try read(source) { body.append($0, at: nil) }
            } catch {
                // The transport reads the body again and meets the same trouble: its error is the exchange's.
                comment = "the body could not be read for the record: \(LogRedaction.describe(error))"
            }
        } else {
            let copy = try spooled(source) { body.append($0, at: nil) }
            spool = copy.deletingLastPathComponent()
            do {
                request.body = try UploadSource(fileURL: copy)
            } catch {
                try? FileManager.default.removeItem(at: copy.deletingLastPathComponent())
                throw error
            }
        }
        let outcome = body.finish()
        if let failure = outcome.failure { recorder.note(failure) }
        comment = comment ?? outcome.comment
        exchange.setRequestBody(
            HARPostData(
                mimeType: contentType ?? "", text: outcome.text, comment: comment, encoding: outcome.encoding,
                file: outcome.file),
            size: outcome.size, spool: spool)
    }

    /// Reads `source` to its end in bounded pieces.
    private static func read(_ source: UploadSource, _ piece: (Data) throws -> Void) throws {
        let reader = try source.makeReader()
        defer { reader.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer)
            guard count > 0 else { return }
            try piece(Data(UnsafeRawBufferPointer(rebasing: buffer[..<count])))
        }
    }

    /// Copies a single-use `source` into a file of a new temporary folder, handing each piece to `piece` too, and
    /// returns the file. The folder is removed on failure here, and by the exchange once it is over otherwise.
    private static func spooled(_ source: UploadSource, _ piece: (Data) -> Void) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-har-spool-\(UUID().uuidString)", isDirectory: true)
        let file = folder.appendingPathComponent("body.bin")
        let handle: FileHandle
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Readable by its owner only: it holds the body as sent, credentials included.
            guard
                FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown)
            }
            handle = try FileHandle(forWritingTo: file)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw HARRecordingError(operation: "spool a stream request body", path: file.path, reason: "\(error)")
        }
        do {
            defer { try? handle.close() }
            try read(source) { data in
                do {
                    try handle.write(contentsOf: data)
                } catch {
                    throw HARRecordingError(
                        operation: "spool a stream request body", path: file.path, reason: "\(error)")
                }
                piece(data)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        return file
    }
}

import Foundation  // FileHandle: not in FoundationEssentials
import NetCore
import NetKitLock

/// Where a reply's body bytes come from: its chunks in memory, or a file read piece by piece (never whole), so a
/// recorded body of any size replays in bounded memory.
final class StubBodySource: Sendable {
    /// How far a reader has come: the next piece, and, for a file, where its bytes are.
    struct Cursor {
        var piece = 0
        var offset: Int64 = 0
        var leftInPiece = 0
    }

    /// The pieces of a file, when the reply names no sizes.
    static let defaultPieceSize = 64 * 1024
    /// The most bytes read from the file at once: a larger piece is handed over in several runs.
    static let largestRead = 1024 * 1024

    private let chunks: [Data]
    private let sizes: [Int]?
    /// The open file; `nil` for a body in memory, and once closed.
    private let file: Lock<FileHandle?>
    private let isFile: Bool
    /// The body's length in bytes.
    let length: Int64

    /// A source of `chunks`, or of the file at `file` (opened now) cut in pieces of `sizes`.
    /// - Throws: the file system's error when the file cannot be opened.
    init(chunks: [Data], file: URL?, sizes: [Int]?) throws {
        self.chunks = chunks
        self.sizes = sizes
        if let file {
            let handle = try FileHandle(forReadingFrom: file)
            self.length = Int64(try handle.seekToEnd())
            self.file = Lock(handle)
            self.isFile = true
        } else {
            self.length = Int64(chunks.reduce(0) { $0 + $1.count })
            self.file = Lock(nil)
            self.isFile = false
        }
    }

    deinit {
        close()
    }

    /// Closes the file, if any: the body has ended, or its consumer has gone.
    func close() {
        let handle = file.withLock { file in
            defer { file = nil }
            return file
        }
        try? handle?.close()
    }

    /// The next bytes after `cursor`, with the index of the piece they start (`nil` when they go on a piece already
    /// begun, whose delay has been waited); `nil` at the end. An empty run starts a piece that has no bytes.
    /// - Throws: the file system's error, or `TransportError(.cancelled)` once the source was closed.
    func next(_ cursor: inout Cursor) throws -> (data: Data, piece: Int?)? {
        guard isFile else {
            guard cursor.piece < chunks.count else { return nil }
            defer { cursor.piece += 1 }
            return (chunks[cursor.piece], cursor.piece)
        }
        var started: Int?
        if cursor.leftInPiece == 0 {
            started = cursor.piece
            if let sizes {
                // Past the sizes given, the rest of the file is one last piece.
                cursor.leftInPiece = cursor.piece < sizes.count ? max(0, sizes[cursor.piece]) : .max
            } else {
                cursor.leftInPiece = Self.defaultPieceSize
            }
            cursor.piece += 1
            if cursor.leftInPiece == 0 { return cursor.offset < length ? (Data(), started) : nil }
        }
        let count = min(cursor.leftInPiece, cursor.leftInPiece == .max ? Self.defaultPieceSize : Self.largestRead)
        let data = try file.withLock { file -> Data in
            guard let file else {
                throw TransportError(.cancelled, detail: "StubTransport: the reply's body file was closed")
            }
            try file.seek(toOffset: UInt64(cursor.offset))
            return try file.read(upToCount: count) ?? Data()
        }
        guard !data.isEmpty else { return nil }
        cursor.offset += Int64(data.count)
        if cursor.leftInPiece != .max { cursor.leftInPiece -= data.count }
        return (data, started)
    }
}

import Foundation  // InputStream: not in FoundationEssentials

/// The bytes of a request body, described rather than held: memory, files and streams in order. NetKit's one
/// request body abstraction: what ``TransportRequest/body`` carries to every transport.
///
/// A body of any size is sent in bounded memory because nothing is read until a transport
/// pulls bytes through an ``UploadReader``; files are opened only when reached and closed at
/// their end. The same description serves a multipart form (framing in memory around file
/// parts) and a plain file body.
///
/// ```swift
/// let source = try UploadSource(fileURL: videoURL)
/// source.length          // exact size, for Content-Length and progress
/// source.isReplayable    // true: a retry re-reads the file from its start
/// let reader = try source.makeReader()
/// ```
public struct UploadSource: Sendable, Equatable {
    /// One run of bytes of the body.
    public enum Segment: Sendable, Equatable {
        /// Bytes in memory.
        case data(Data)
        /// A file, or a range of one, read when reached.
        case file(UploadFile)
        /// A one-shot stream; `length` is its exact size when known, `nil` otherwise (the
        /// body is then sent chunked).
        case stream(SingleUseInputStream, length: Int64?)

        /// The segment's size, or `nil` for a stream of unknown length.
        public var length: Int64? {
            switch self {
            case let .data(data): Int64(data.count)
            case let .file(file): file.length
            case let .stream(_, length): length
            }
        }
    }

    /// The segments, in the order they are sent.
    public private(set) var segments: [Segment]

    /// A body made of `segments`; empty segments are kept (they cost nothing to read).
    public init(segments: [Segment] = []) {
        self.segments = segments
    }

    /// A body of bytes in memory.
    public init(data: Data) {
        self.init(segments: [.data(data)])
    }

    /// A body that is the whole file at `fileURL`, checked now.
    /// - Throws: see ``UploadFile/init(url:offset:length:)``.
    public init(fileURL: URL) throws(UploadSourceError) {
        self.init(segments: [.file(try UploadFile(url: fileURL))])
    }

    /// A body read once from `stream`; `length` is its exact size when known.
    ///
    /// - Precondition: `length` is `nil` or not negative.
    public init(stream: sending InputStream, length: Int64?) {
        precondition(length.map { $0 >= 0 } ?? true, "A stream length cannot be negative")
        self.init(segments: [.stream(SingleUseInputStream(stream), length: length)])
    }

    /// Appends a segment.
    public mutating func append(_ segment: Segment) {
        segments.append(segment)
    }

    /// The exact number of bytes the body has, or `nil` when a stream's length is unknown.
    ///
    /// Sent as `Content-Length`, and the total of upload progress; an unknown length makes
    /// transports send the body chunked.
    public var length: Int64? {
        var total: Int64 = 0
        for segment in segments {
            guard let length = segment.length else { return nil }
            total += length
        }
        return total
    }

    /// Whether a second reader can produce the same bytes: false exactly when a one-shot
    /// stream is part of the body.
    ///
    /// Retries and the 401 → refresh → retry path depend on it: memory and files are read
    /// again from their start.
    public var isReplayable: Bool {
        !segments.contains { if case .stream = $0 { true } else { false } }
    }

    /// The bytes, when the whole body is one run of memory: transports send it in one write.
    public var inMemoryData: Data? {
        switch segments.count {
        case 0: Data()
        case 1: if case .data(let data) = segments[0] { data } else { nil }
        default: nil
        }
    }

    /// Whether a one-shot stream of the body was already taken by an earlier reader, so the body cannot be
    /// produced again.
    public var isConsumed: Bool {
        segments.contains { segment in
            if case .stream(let stream, _) = segment { stream.isTaken } else { false }
        }
    }

    /// Starts reading the body from its first byte.
    ///
    /// Takes every stream segment now, so a body that cannot be produced again fails here,
    /// before a request is sent. Files are not opened yet.
    ///
    /// - Throws: ``UploadSourceError/streamAlreadyConsumed`` when a stream was taken by an
    ///   earlier reader.
    public func makeReader() throws(UploadSourceError) -> UploadReader {
        var plan: [UploadReader.Step] = []
        plan.reserveCapacity(segments.count)
        var taken: [InputStream] = []
        for segment in segments {
            switch segment {
            case let .data(data):
                plan.append(.data(data))
            case let .file(file):
                plan.append(.file(file))
            case let .stream(handle, length):
                guard let stream = handle.take() else {
                    // Streams taken so far are lost either way; close them rather than leak them.
                    for stream in taken { stream.close() }
                    throw .streamAlreadyConsumed
                }
                taken.append(stream)
                plan.append(.stream(stream, length: length))
            }
        }
        return UploadReader(steps: plan)
    }
}

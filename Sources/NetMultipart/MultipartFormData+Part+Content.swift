#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

extension MultipartFormData.Part {
    /// Where a part's bytes come from.
    public enum Content: Sendable, Equatable {
        /// Bytes in memory, sent verbatim.
        case data(Data)
        /// A file (or range of one), checked when the part was added and read when sent.
        case file(UploadFile)
        /// A one-shot stream of exactly `length` bytes; a form holding one is sent once.
        case stream(SingleUseInputStream, length: Int64)

        /// The number of bytes the part's data has.
        public var length: Int64 {
            switch self {
            case let .data(data): Int64(data.count)
            case let .file(file): file.length
            case let .stream(_, length): length
            }
        }

        /// The body segment that sends this content.
        var segment: UploadSource.Segment {
            switch self {
            case let .data(data): .data(data)
            case let .file(file): .file(file)
            case let .stream(stream, length): .stream(stream, length: length)
            }
        }
    }
}

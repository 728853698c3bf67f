#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A HAR 1.2 file (HTTP Archive, the format browsers' developer tools export): one ``HARLog`` under `"log"`.
///
/// NetKit reads HAR files that browsers and proxies write (fields it does not know are ignored, optional ones may be
/// missing) and writes files that carry every field the specification requires, so a HAR viewer opens them.
/// Fields of NetKit's own begin with an underscore, as the specification asks of custom fields: `_chunks` (how a
/// body was streamed), `_file` (a large body kept in a file beside the archive), `_encoding` (a request body that
/// is not UTF-8).
public struct HARArchive: Codable, Sendable, Equatable {
    /// The log.
    public var log: HARLog

    /// Creates an archive around `log`.
    public init(log: HARLog) {
        self.log = log
    }

    /// Reads the archive at `url`.
    /// - Throws: the file system's error, or a `DecodingError` that names the field that did not fit.
    public init(contentsOf url: URL) throws {
        self = try JSONDecoder().decode(HARArchive.self, from: Data(contentsOf: url))
    }

    /// The archive as JSON, keys sorted and indented, so a fixture's diff shows what changed.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes the archive to `url`, replacing what was there only once the new file is whole.
    public func write(to url: URL) throws {
        try encoded().write(to: url, options: .atomic)
    }
}

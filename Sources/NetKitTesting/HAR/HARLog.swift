#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `log` of a HAR file: who wrote it and the exchanges, in the order they started.
public struct HARLog: Codable, Sendable, Equatable {
    /// The format's version; NetKit writes `"1.2"`.
    public var version: String
    /// The program that wrote the file.
    public var creator: HARCreator
    /// The exchanges, in the order they started.
    public var entries: [HAREntry]
    /// A note of the writer's.
    public var comment: String?

    /// Creates a log.
    public init(
        version: String = "1.2", creator: HARCreator = .netKit, entries: [HAREntry] = [], comment: String? = nil
    ) {
        self.version = version
        self.creator = creator
        self.entries = entries
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey {
        case version, creator, entries, comment
    }

    /// Reads a log; a missing version or creator (hand-written files) reads as 1.2 by an unknown writer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? "1.2"
        creator = try container.decodeIfPresent(HARCreator.self, forKey: .creator) ?? HARCreator(name: "", version: "")
        entries = try container.decodeIfPresent([HAREntry].self, forKey: .entries) ?? []
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

/// The program that wrote a HAR file.
public struct HARCreator: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its version.
    public var version: String

    /// Creates a creator.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    /// NetKit, as the writer of the files it records.
    public static let netKit = HARCreator(name: "NetKit", version: "1")
}

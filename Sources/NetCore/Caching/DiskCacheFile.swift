#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry file of a disk cache, as its index knows it: the entry's identity and key, which make its name, and the
/// file's size, which counts against the bound.
///
/// The name is `<key>-<id>.entry`, the key being a digest (``ResponseCacheEntry/key``): listing the directory tells
/// the index everything it needs without opening a file. Anything else in the directory is not an entry.
struct DiskCacheFile: Sendable, Equatable {
    /// The entry's identity.
    let id: UUID
    /// The key the entry is filed under: 64 lowercase hexadecimal digits.
    let key: String
    /// The file's size in bytes.
    let size: Int

    /// What an entry file's name ends with.
    static let suffix = ".entry"
    /// What a file being written is named with until it is whole (`<id>.partial`): never read, removed at opening.
    static let partialSuffix = ".partial"

    init(id: UUID, key: String, size: Int) {
        self.id = id
        self.key = key
        self.size = size
    }

    /// The file named `name` with `size` bytes, or `nil` when the name is not an entry's.
    init?(name: String, size: Int) {
        guard name.hasSuffix(Self.suffix) else { return nil }
        let stem = name.dropLast(Self.suffix.count)
        let digits = stem.utf8.prefix(64)
        guard digits.count == 64, digits.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
            stem.utf8.dropFirst(64).first == UInt8(ascii: "-"),
            let id = UUID(uuidString: String(stem.dropFirst(65)))
        else { return nil }
        self.init(id: id, key: String(stem.prefix(64)), size: size)
    }

    /// The file's name in the cache directory.
    var name: String { "\(key)-\(id.uuidString)\(Self.suffix)" }
}

/// What proves that the bytes already on disk and the bytes a server would send next belong to the same version of a
/// resource: the value a resumed download sends in `If-Range` (RFC 9110 §13.1.5).
///
/// Only a strong validator can resume a download: a weak entity tag (`W/"…"`) says two versions are equivalent, not
/// that they are the same bytes, so a response with only a weak tag and no `Last-Modified` cannot be resumed.
public enum DownloadValidator: Codable, Sendable, Hashable {
    /// A strong entity tag, quotes included, exactly as the server sent it (`"v1"`).
    case entityTag(String)
    /// A `Last-Modified` date, exactly as the server sent it.
    case lastModified(String)

    /// The `If-Range` value a resumed request sends.
    public var ifRangeValue: String {
        switch self {
        case .entityTag(let tag): tag
        case .lastModified(let date): date
        }
    }

    /// The strongest validator a response offers: its entity tag when strong, else its `Last-Modified` date, else
    /// `nil`.
    static func strongest(entityTag: String?, lastModified: String?) -> DownloadValidator? {
        if let entityTag, isStrong(entityTag) { return .entityTag(entityTag) }
        if let lastModified, !lastModified.isEmpty { return .lastModified(lastModified) }
        return nil
    }

    /// Whether `tag` is a well-formed strong entity tag: `"…"`, no `W/` prefix (RFC 9110 §8.8.3).
    static func isStrong(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        return bytes.count >= 2 && bytes.first == UInt8(ascii: "\"") && bytes.last == UInt8(ascii: "\"")
            && !bytes.dropFirst().dropLast().contains(UInt8(ascii: "\""))
    }

    /// Whether a response's entity tag shows the same version as this validator, compared byte for byte (the
    /// strong comparison of RFC 9110 §8.8.3.2). A `Last-Modified` validator says nothing about tags.
    func matches(entityTag: String?) -> Bool {
        guard case .entityTag(let mine) = self else { return true }
        guard let entityTag else { return true }
        return Array(mine.utf8) == Array(entityTag.utf8)
    }
}

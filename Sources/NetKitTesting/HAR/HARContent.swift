#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The body of a HAR response: inline as text (base64 when it is not UTF-8), or in a file beside the archive.
public struct HARContent: Codable, Sendable, Equatable {
    /// The body's length in bytes, decoded.
    public var size: Int
    /// Bytes saved by compression on the wire, when known.
    public var compression: Int?
    /// The `Content-Type` (empty when the response had none).
    public var mimeType: String
    /// The body as text; base64 when ``encoding`` is `"base64"`; `nil` when the body is in ``file`` or was not kept.
    public var text: String?
    /// `"base64"` for a body that is not UTF-8 text.
    public var encoding: String?
    /// A note of the writer's.
    public var comment: String?
    /// NetKit's: the file holding the body, relative to the archive's folder, for a body too large to inline.
    public var file: String?
    /// NetKit's: how the body arrived, chunk by chunk, so a replay delivers it the same way.
    public var chunks: [HARChunk]?

    /// Creates a content record.
    public init(
        size: Int = 0, compression: Int? = nil, mimeType: String = "", text: String? = nil,
        encoding: String? = nil, comment: String? = nil, file: String? = nil, chunks: [HARChunk]? = nil
    ) {
        self.size = size
        self.compression = compression
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.comment = comment
        self.file = file
        self.chunks = chunks
    }

    private enum CodingKeys: String, CodingKey {
        case size, compression, mimeType, text, encoding, comment
        case file = "_file"
        case chunks = "_chunks"
    }

    /// Reads a content record; every field may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decodeIfPresent(Int.self, forKey: .size) ?? 0
        compression = try container.decodeIfPresent(Int.self, forKey: .compression)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        text = try container.decodeIfPresent(String.self, forKey: .text)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        file = try container.decodeIfPresent(String.self, forKey: .file)
        chunks = try container.decodeIfPresent([HARChunk].self, forKey: .chunks)
    }

    /// The inline body's bytes (``text``, base64-decoded when ``encoding`` says so); `nil` when there is none or the
    /// base64 is malformed.
    public var inlineData: Data? {
        HARText.data(text: text, encoding: encoding)
    }
}

/// The body of a HAR request.
public struct HARPostData: Codable, Sendable, Equatable {
    /// The `Content-Type`.
    public var mimeType: String
    /// A form body's fields, as browsers list them; NetKit keeps the body in ``text`` instead.
    public var params: [HARParameter]?
    /// The body as text; base64 when ``encoding`` is `"base64"`.
    public var text: String?
    /// A note of the writer's.
    public var comment: String?
    /// NetKit's: `"base64"` for a body that is not UTF-8 text (HAR 1.2 gives request bodies no such field).
    public var encoding: String?
    /// NetKit's: the file holding the body, relative to the archive's folder, for a body too large to inline.
    public var file: String?

    /// Creates a request body record.
    public init(
        mimeType: String = "", params: [HARParameter]? = nil, text: String? = nil, comment: String? = nil,
        encoding: String? = nil, file: String? = nil
    ) {
        self.mimeType = mimeType
        self.params = params
        self.text = text
        self.comment = comment
        self.encoding = encoding
        self.file = file
    }

    private enum CodingKeys: String, CodingKey {
        case mimeType, params, text, comment
        case encoding = "_encoding"
        case file = "_file"
    }

    /// Reads a request body record; every field may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        params = try container.decodeIfPresent([HARParameter].self, forKey: .params)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        file = try container.decodeIfPresent(String.self, forKey: .file)
    }

    /// The inline body's bytes; `nil` when there is none.
    public var inlineData: Data? {
        HARText.data(text: text, encoding: encoding)
    }
}

/// One chunk of a streamed body, as NetKit records it (`_chunks`).
public struct HARChunk: Codable, Sendable, Equatable {
    /// Its length in bytes.
    public var size: Int
    /// When it arrived, in milliseconds after the response head.
    public var time: Double

    /// Creates a chunk record.
    public init(size: Int, time: Double) {
        self.size = size
        self.time = time
    }
}

/// How HAR holds bytes as text.
enum HARText {
    /// `data` as UTF-8 text when it is valid UTF-8, else as base64 with the encoding `"base64"`.
    static func text(for data: Data) -> (text: String, encoding: String?) {
        if let text = String(validating: data, as: UTF8.self) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    /// The bytes `text` holds under `encoding`.
    static func data(text: String?, encoding: String?) -> Data? {
        guard let text else { return nil }
        if encoding == "base64" { return Data(base64Encoded: text) }
        return Data(text.utf8)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitDigest

extension ResponseCacheEntry {
    /// The entry as bytes, for a store that keeps bytes (a file, a database row): read back with
    /// ``init(encoded:)``, in this process or a later one.
    ///
    /// The bytes hold the response (status, stored header fields, body, the URL redirects led to), its freshness,
    /// the key, and whose request it answered as salted SHA-256 digests: no credential and no request header
    /// value in clear. A CRC-32 over everything ends them, so a truncated or damaged copy is refused on reading.
    public func encoded() -> Data {
        let response = self.response
        let seal = response.owner.sealed
        var meta = EntryWriter()
        meta.string(key)
        withUnsafeBytes(of: id.uuid) { meta.bytes($0) }
        meta.double(response.freshness.lifetime)
        meta.byte(response.freshness.isExplicit ? 1 : 0)
        meta.double(response.freshness.initialAge)
        meta.double(response.freshness.responseTime.timeIntervalSince1970)
        meta.integer(UInt32(clamping: response.head.statusCode))
        meta.string(response.head.reasonPhrase)
        meta.integer(UInt32(response.head.headerFields.count))
        for field in response.head.headerFields {
            meta.string(field.name)
            meta.string(field.value)
        }
        meta.optionalString(response.url?.absoluteString)
        meta.bytes(seal.salt)
        meta.bytes(seal.partition)
        meta.integer(UInt32(seal.varying.count))
        for field in seal.varying {
            meta.string(field.name)
            meta.byte(field.digest == nil ? 0 : 1)
            if let digest = field.digest { meta.bytes(digest) }
        }

        var file = EntryWriter()
        file.bytes(Self.magic)
        file.byte(Self.version)
        file.bytes([0, 0, 0])
        file.integer(UInt32(meta.data.count))
        file.integer(UInt64(response.body.count))
        file.data.append(meta.data)
        file.data.append(response.body)
        let checksum = file.data.withUnsafeBytes { CRC32.checksum($0) }
        file.integer(checksum)
        return file.data
    }

    /// The entry ``encoded()`` wrote.
    /// - Throws: ``ResponseCacheError/damagedEntry(reason:)`` when the bytes are not a whole entry of this format
    ///   (truncated, altered, another version, a field a header may not hold): nothing of them is used.
    public init(encoded data: Data) throws(ResponseCacheError) {
        let fixed = Self.magic.count + 4 + 4 + 8
        guard data.count >= fixed + 4 else { throw .damagedEntry(reason: "\(data.count) bytes: shorter than a header") }
        let bytes = [UInt8](data)
        guard Array(bytes[0..<Self.magic.count]) == Self.magic else {
            throw .damagedEntry(reason: "it does not begin as a NetKit cache entry")
        }
        guard bytes[Self.magic.count] == Self.version else {
            throw .damagedEntry(reason: "format version \(bytes[Self.magic.count]), this NetKit reads \(Self.version)")
        }
        let stored = EntryReader.littleEndian(UInt32.self, bytes[(bytes.count - 4)...])
        let computed = bytes.withUnsafeBytes {
            CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<(bytes.count - 4)]))
        }
        guard stored == computed else {
            throw .damagedEntry(reason: "its checksum does not match its contents (truncated or altered)")
        }
        var reader = EntryReader(bytes[(Self.magic.count + 4)..<(bytes.count - 4)])
        let metaCount = Int(try reader.integer(UInt32.self))
        let bodyCount = try reader.integer(UInt64.self)
        // Added without overflow: a damaged length may be anything.
        let (total, overflow) = bodyCount.addingReportingOverflow(UInt64(metaCount))
        guard !overflow, total == UInt64(reader.remaining) else {
            throw .damagedEntry(reason: "its lengths do not add up to its size")
        }
        var meta = EntryReader(try reader.slice(metaCount))
        let body = Data(try reader.slice(Int(bodyCount)))

        let key = try meta.string()
        guard key.utf8.count == 64, key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .damagedEntry(reason: "its key is not a digest")
        }
        let uuidBytes = try meta.bytes(16)
        let id = UUID(
            uuid: (
                uuidBytes[0], uuidBytes[1], uuidBytes[2], uuidBytes[3], uuidBytes[4], uuidBytes[5], uuidBytes[6],
                uuidBytes[7], uuidBytes[8], uuidBytes[9], uuidBytes[10], uuidBytes[11], uuidBytes[12], uuidBytes[13],
                uuidBytes[14], uuidBytes[15]
            ))
        let lifetime = try meta.double()
        let isExplicit = try meta.byte() == 1
        let initialAge = try meta.double()
        let responseTime = Date(timeIntervalSince1970: try meta.double())
        let status = Int(try meta.integer(UInt32.self))
        guard (100...999).contains(status) else { throw .damagedEntry(reason: "status \(status) is not a status") }
        let reason = try meta.string()
        let fieldCount = Int(try meta.integer(UInt32.self))
        // Each field takes at least its two lengths: a count beyond that is damage, not an allocation to make.
        guard fieldCount <= meta.remaining / 8 else { throw .damagedEntry(reason: "its field count is too large") }
        var fields: [HTTPHeaderField] = []
        fields.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount {
            let name = try meta.string()
            let value = try meta.string()
            do {
                fields.append(try HTTPHeaderField(name: name, value: value))
            } catch {
                throw .damagedEntry(reason: "it holds a header field no response may carry")
            }
        }
        let url = try meta.optionalString().map { text throws(ResponseCacheError) -> URL in
            guard let url = URL(string: text) else { throw .damagedEntry(reason: "its URL does not parse") }
            return url
        }
        let salt = try meta.bytes(CachedResponse.Seal.saltCount)
        let partition = try meta.bytes(32)
        let varyingCount = Int(try meta.integer(UInt32.self))
        guard varyingCount <= meta.remaining / 5 else { throw .damagedEntry(reason: "its Vary count is too large") }
        var varying: [CachedResponse.Seal.Field] = []
        for _ in 0..<varyingCount {
            let name = try meta.string()
            let digest = try meta.byte() == 1 ? try meta.bytes(32) : nil
            varying.append(CachedResponse.Seal.Field(name: name, digest: digest))
        }
        guard meta.remaining == 0 else { throw .damagedEntry(reason: "it has bytes after its last field") }
        guard lifetime.isFinite, initialAge.isFinite, responseTime.timeIntervalSince1970.isFinite else {
            throw .damagedEntry(reason: "its times are not numbers")
        }
        let head = HTTPResponseHead(statusCode: status, reasonPhrase: reason, headerFields: HTTPHeaderFields(fields))
        self.init(
            id: id, key: key,
            response: CachedResponse(
                head: head, body: body, url: url,
                owner: .sealed(CachedResponse.Seal(salt: salt, partition: partition, varying: varying)),
                freshness: CacheFreshness(
                    lifetime: lifetime, isExplicit: isExplicit, initialAge: initialAge, responseTime: responseTime)))
    }

    /// What every encoded entry begins with.
    private static let magic: [UInt8] = Array("NKCE".utf8)
    /// The format's version: an entry of another is refused, never guessed at.
    private static let version: UInt8 = 1
}

/// Appends little-endian integers and length-prefixed strings.
private struct EntryWriter {
    var data = Data()

    mutating func byte(_ value: UInt8) { data.append(value) }

    mutating func bytes(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }

    mutating func bytes(_ buffer: UnsafeRawBufferPointer) { data.append(contentsOf: buffer) }

    mutating func integer<Value: FixedWidthInteger>(_ value: Value) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) { integer(value.bitPattern) }

    mutating func string(_ text: String) {
        integer(UInt32(text.utf8.count))
        data.append(contentsOf: text.utf8)
    }

    mutating func optionalString(_ text: String?) {
        byte(text == nil ? 0 : 1)
        if let text { string(text) }
    }
}

/// Reads what ``EntryWriter`` wrote, refusing to read past the end.
private struct EntryReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - position }

    mutating func slice(_ count: Int) throws(ResponseCacheError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .damagedEntry(reason: "a length runs past its end") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func bytes(_ count: Int) throws(ResponseCacheError) -> [UInt8] {
        Array(try slice(count))
    }

    mutating func byte() throws(ResponseCacheError) -> UInt8 {
        try slice(1).first!
    }

    mutating func integer<Value: FixedWidthInteger>(_: Value.Type) throws(ResponseCacheError) -> Value {
        Self.littleEndian(Value.self, try slice(MemoryLayout<Value>.size))
    }

    mutating func double() throws(ResponseCacheError) -> Double {
        Double(bitPattern: try integer(UInt64.self))
    }

    mutating func string() throws(ResponseCacheError) -> String {
        let count = Int(try integer(UInt32.self))
        guard let text = String(validating: try slice(count), as: UTF8.self) else {
            throw .damagedEntry(reason: "a text is not UTF-8")
        }
        return text
    }

    mutating func optionalString() throws(ResponseCacheError) -> String? {
        try byte() == 1 ? try string() : nil
    }

    /// The little-endian integer `slice` holds (exactly its size).
    static func littleEndian<Value: FixedWidthInteger>(_: Value.Type, _ slice: ArraySlice<UInt8>) -> Value {
        var value = Value.zero
        for (shift, byte) in slice.enumerated() { value |= Value(byte) << (8 * shift) }
        return value
    }
}

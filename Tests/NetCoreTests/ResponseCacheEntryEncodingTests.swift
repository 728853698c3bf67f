import Foundation
import Testing
import NetCore
import NetKitDigest

/// An entry as bytes (what the disk store and a user's store keep): read back whole, matching the same callers,
/// holding no credential or request value in clear, and refused — never trusted, never a crash — when the bytes are
/// cut short or altered.
@Suite("Response cache entries as bytes: round trip, digests in place of secrets, damage refused")
struct ResponseCacheEntryEncodingTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let secret = "Bearer secret-token-4711"

    static func request(_ pairs: [(String, String)]) throws -> HTTPRequestHead {
        try HTTPRequestHead(
            method: .get, url: URL(string: "https://api.test/items?page=2")!,
            headerFields: HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) }))
    }

    static func entry(for request: HTTPRequestHead, transport: TransportIdentity = fixtureTransport) throws
        -> ResponseCacheEntry
    {
        let head = HTTPResponseHead(
            statusCode: 203, reasonPhrase: "Non-Authoritative",
            headerFields: try HTTPHeaderFields([
                (name: "Cache-Control", value: "max-age=60"), (name: "ETag", value: #""v1""#),
                (name: "Vary", value: "Accept-Language, X-Tenant"), (name: "Set-Cookie", value: "a=b"),
                (name: "X-Repeated", value: "1"), (name: "X-Repeated", value: "2"),
            ]))
        let response = try #require(
            CachedResponse(
                head: head, body: Data("the body".utf8), url: URL(string: "https://api.test/moved"),
                request: request, partition: .of(request, transport: transport), requestTime: t0,
                responseTime: t0.addingTimeInterval(2)))
        return ResponseCacheEntry(key: CacheKey(request).digest, response: response)
    }

    static let asked = [("Authorization", secret), ("Accept-Language", "en, de"), ("X-Tenant", "tenant-secret-99")]

    @Test("read back: id, key, status, stored fields in order, body, URL and freshness")
    func roundTrip() throws {
        let request = try Self.request(Self.asked)
        let entry = try Self.entry(for: request)
        let read = try ResponseCacheEntry(encoded: entry.encoded())
        #expect(read.id == entry.id && read.key == entry.key)
        #expect(read.key == CacheKey(request).digest && read.key.count == 64)
        #expect(read.response.head == entry.response.head)
        #expect(read.response.head.headerFields.values(for: "X-Repeated") == ["1", "2"])
        #expect(!read.response.head.headerFields.contains("Set-Cookie"), "never stored")
        #expect(read.response.body == Data("the body".utf8))
        #expect(read.response.url == URL(string: "https://api.test/moved"))
        #expect(read.response.freshness == entry.response.freshness)
        #expect(read.receivedAt == Self.t0.addingTimeInterval(2))
    }

    @Test("read back, it answers the same caller and no other: credentials and Vary values compared as digests")
    func matchesAsBefore() throws {
        let request = try Self.request(Self.asked)
        let read = try ResponseCacheEntry(encoded: try Self.entry(for: request).encoded())
        #expect(read.response.matches(request, in: .of(request)))
        let reordered = try Self.request([
            ("Authorization", Self.secret), ("Accept-Language", "de,EN"), ("X-Tenant", "tenant-secret-99"),
        ])
        #expect(read.response.matches(reordered, in: .of(reordered)), "Vary normalisation holds for digests too")
        let otherToken = try Self.request([
            ("Authorization", "Bearer other"), ("Accept-Language", "en, de"), ("X-Tenant", "tenant-secret-99"),
        ])
        #expect(!read.response.matches(otherToken, in: .of(otherToken)))
        let otherTenant = try Self.request([
            ("Authorization", Self.secret), ("Accept-Language", "en, de"), ("X-Tenant", "tenant-1"),
        ])
        #expect(!read.response.matches(otherTenant, in: .of(otherTenant)))
        let noTenant = try Self.request([("Authorization", Self.secret), ("Accept-Language", "en, de")])
        #expect(!read.response.matches(noTenant, in: .of(noTenant)))
        #expect(
            !read.response.matches(request, in: .of(request, jar: 7)),
            "a request whose cookies a jar chose is another caller")
    }

    @Test("across launches a transport is its type: another instance of the type matches, another type does not")
    func transportTypeOutlivesTheInstance() throws {
        let request = try Self.request(Self.asked)
        let read = try ResponseCacheEntry(encoded: try Self.entry(for: request).encoded())
        let sameType = TransportIdentity(IdentityOnlyTransport())
        #expect(sameType != fixtureTransport)
        #expect(read.response.matches(request, in: .of(request, transport: sameType)))
        #expect(!read.response.matches(request, in: .of(request, transport: TransportIdentity(ValueTransport()))))
        // In memory the instance still counts.
        let inMemory = try Self.entry(for: request)
        #expect(!inMemory.response.matches(request, in: .of(request, transport: sameType)))
    }

    @Test("the bytes hold no credential, no Vary value and no URL of the request; two encodings share no digest")
    func noSecretInTheBytes() throws {
        let request = try Self.request(Self.asked)
        let entry = try Self.entry(for: request)
        let bytes = entry.encoded()
        for needle in [Self.secret, "secret-token", "tenant-secret-99", "page=2", "api.test/items"] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is in the bytes")
        }
        let again = entry.encoded()
        #expect(bytes != again, "each encoding is salted anew")
    }

    @Test("every truncation is refused as damaged, never a crash")
    func truncationRefused() throws {
        let bytes = try Self.entry(for: try Self.request(Self.asked)).encoded()
        for length in 0..<bytes.count {
            #expect(throws: ResponseCacheError.self) { try ResponseCacheEntry(encoded: bytes.prefix(length)) }
        }
        #expect(throws: ResponseCacheError.self) { try ResponseCacheEntry(encoded: bytes + Data([0])) }
    }

    @Test("a flipped bit anywhere is refused by the checksum")
    func alterationRefused() throws {
        let bytes = [UInt8](try Self.entry(for: try Self.request(Self.asked)).encoded())
        for index in stride(from: 0, to: bytes.count, by: 3) {
            var altered = bytes
            altered[index] ^= 0x10
            #expect(throws: ResponseCacheError.self) { try ResponseCacheEntry(encoded: Data(altered)) }
        }
    }

    @Test("another format version is refused, with its version in the reason")
    func otherVersionRefused() throws {
        var bytes = [UInt8](try Self.entry(for: try Self.request(Self.asked)).encoded())
        bytes[4] = 9
        #expect(throws: ResponseCacheError.self) { try ResponseCacheEntry(encoded: Data(bytes)) }
        do {
            _ = try ResponseCacheEntry(encoded: Data(bytes))
        } catch {
            #expect(error.errorDescription?.contains("version 9") == true)
        }
    }
}

extension ResponseCacheEntryEncodingTests {
    @Test("lengths whose sum overflows are refused, not trapped on (found by fuzz-cache-entry)")
    func overflowingLengths() throws {
        // Magic, version, a metadata length of 174 and a body length of 2^64 − 7, then a checksum that fits.
        var bytes: [UInt8] =
            Array("NKCE".utf8) + [1, 0, 0, 0] + [0xAE, 0, 0, 0] + [0xF9] + Array(repeating: 0xFF, count: 7)
        bytes += Array(repeating: 0x61, count: 40)
        let checksum = bytes.withUnsafeBytes { CRC32.checksum($0) }
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: checksum >> UInt32(shift)))
        }
        #expect(throws: ResponseCacheError.self) { try ResponseCacheEntry(encoded: Data(bytes)) }
    }
}

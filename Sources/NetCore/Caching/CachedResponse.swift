#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response as the cache keeps it: its head, its body, how fresh it is, and what of its request decides which
/// later requests it may answer (whose it was, and the fields its `Vary` names: its ``Owner``).
///
/// The stored head leaves out what belongs to one connection or one delivery (RFC 9111 §3.1): `Connection` and the
/// fields it names, the other hop-by-hop fields, and `Set-Cookie` (the cookies were handed to the cookie jar when
/// the response arrived; a cookie replayed from the cache would undo what later responses set).
package struct CachedResponse: Sendable {
    /// One request field a `Vary` names, with the request's value (`nil` when it had none).
    package struct VaryingField: Sendable, Equatable {
        /// The field name, lowercased.
        package var name: String
        /// The value the stored response's request sent, repeated fields joined, spaces around commas trimmed.
        package var value: String?
    }

    /// The head to hand out, stored fields only.
    package private(set) var head: HTTPResponseHead
    /// The whole body.
    package let body: Data
    /// The URL that answered when redirects moved the request elsewhere.
    package let url: URL?
    /// Whose request it answered and what its `Vary` fields held: it answers only requests of the same.
    package private(set) var owner: Owner
    /// How fresh it is.
    package private(set) var freshness: CacheFreshness
    /// The stored head's `Cache-Control` directives, read once rather than at every use.
    package private(set) var control: CacheControl
    /// What it counts against the cache's bound: body, header fields, and the request values kept with it.
    package private(set) var byteCount: Int

    /// The response to `request` of `partition`, or `nil` for one that can never be chosen again (`Vary: *`).
    package init?(
        head: HTTPResponseHead,
        body: Data,
        url: URL? = nil,
        request: HTTPRequestHead,
        partition: CredentialPartition,
        requestTime: Date,
        responseTime: Date
    ) {
        guard let names = Self.varyNames(head.headerFields) else { return nil }
        var stored = head
        stored.headerFields = Self.storable(head.headerFields)
        let varying = names.map { VaryingField(name: $0, value: Self.normalized(request.headerFields, $0)) }
        self.init(
            head: stored, body: body, url: url, owner: .exact(partition, varying: varying),
            freshness: CacheFreshness(head: stored, requestTime: requestTime, responseTime: responseTime))
    }

    /// A response as it was stored, parts already worked out (read back from a store's bytes).
    init(head: HTTPResponseHead, body: Data, url: URL?, owner: Owner, freshness: CacheFreshness) {
        self.head = head
        self.body = body
        self.url = url
        self.owner = owner
        self.freshness = freshness
        self.control = CacheControl(head.headerFields)
        self.byteCount = 0
        self.byteCount = measure()
    }

    /// The entity tag, if the response has one.
    var entityTag: String? { head.headerFields.value(for: "ETag") }

    /// The `Last-Modified` date as the server wrote it, if it sent one.
    var lastModified: String? { head.headerFields.value(for: "Last-Modified") }

    /// Whether the response can be validated: it has an entity tag or a modification date.
    var hasValidator: Bool { entityTag != nil || lastModified != nil }

    /// Whether the response may answer `request` of `partition` (§4.1): the same partition (transport, jar and
    /// every credential value, or none on both), and for each field its `Vary` names the same value (or none on
    /// both). A response read back from a store's bytes compares digests (``Owner``).
    package func matches(_ request: HTTPRequestHead, in partition: CredentialPartition) -> Bool {
        owner.matches(request, in: partition)
    }

    /// The head to hand to a caller, with the response's `Age` in whole seconds at `now` (§5.1).
    package func head(at now: Date) -> HTTPResponseHead {
        var head = head
        let age = min(Double(CacheControl.maximumDelta), freshness.age(at: now)).rounded(.down)
        head.headerFields.set(HTTPHeaderField(uncheckedName: "Age", value: String(Int(age))))
        return head
    }

    /// The response after a 304 validated it (§4.3.4, §3.2): every field of `notModified` replaces the stored
    /// fields of that name, except those the stored body depends on (`Content-Length`, `Content-Encoding`,
    /// `Content-Range`, `Transfer-Encoding`) and those never stored; the stored `Age` goes, and so does `Date` when
    /// the 304 brings no new one, since both described the first response. The freshness starts again from the
    /// times of the validation.
    ///
    /// The head a caller sees (the second value) keeps the 304's `Set-Cookie` fields, which the stored one drops.
    package func updated(
        with notModified: HTTPResponseHead,
        requestTime: Date,
        responseTime: Date
    ) -> (stored: CachedResponse, delivered: HTTPResponseHead) {
        var fields = head.headerFields
        fields.removeValues(for: "Age")
        if !notModified.headerFields.contains("Date") { fields.removeValues(for: "Date") }
        let kept = Self.excluded(from: notModified.headerFields)
        var replaced = Set<String>()
        var delivered = fields
        for field in notModified.headerFields where !Self.keepsStored.contains(field.name.lowercased()) {
            let name = field.name.lowercased()
            if !replaced.contains(name) {
                replaced.insert(name)
                delivered.removeValues(for: name)
                if !kept.contains(name) { fields.removeValues(for: name) }
            }
            delivered.append(field)
            if !kept.contains(name) { fields.append(field) }
        }
        var copy = self
        copy.head.headerFields = fields
        copy.control = CacheControl(fields)
        copy.freshness = CacheFreshness(head: copy.head, requestTime: requestTime, responseTime: responseTime)
        copy.byteCount = copy.measure()
        var deliveredHead = head
        deliveredHead.headerFields = delivered
        return (copy, deliveredHead)
    }

    /// The response owned by `partition` with `request`'s values of the fields its `Vary` names, exactly: what a
    /// response read back from bytes (whose owner is digests) becomes when a request that matched it stores it again
    /// (after a 304), since only the exact owner can be sealed anew or compared in memory.
    package func owned(by partition: CredentialPartition, for request: HTTPRequestHead) -> CachedResponse {
        guard case .sealed = owner, let names = Self.varyNames(head.headerFields) else { return self }
        var copy = self
        copy.owner = .exact(
            partition,
            varying: names.map { VaryingField(name: $0, value: Self.normalized(request.headerFields, $0)) })
        copy.byteCount = copy.measure()
        return copy
    }

    // MARK: Rules

    /// Fields a validation never changes: the stored body depends on them.
    private static let keepsStored: Set<String> = [
        "content-length", "content-encoding", "content-range", "transfer-encoding",
    ]

    /// Fields that describe one connection or one delivery: never stored (§3.1).
    private static let neverStored: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization", "set-cookie",
    ]

    /// The lowercased names of `fields` that are not stored: the fixed ones and those `Connection` names.
    private static func excluded(from fields: HTTPHeaderFields) -> Set<String> {
        var names = neverStored
        for value in fields.values(for: "Connection") {
            for name in value.split(separator: ",") { names.insert(CacheControl.trimmed(name).lowercased()) }
        }
        return names
    }

    /// `fields` without the ones never stored.
    private static func storable(_ fields: HTTPHeaderFields) -> HTTPHeaderFields {
        let excluded = excluded(from: fields)
        return HTTPHeaderFields(fields.filter { !excluded.contains($0.name.lowercased()) })
    }

    /// The lowercased field names every `Vary` of `fields` lists, in order without repeats; `nil` for `*`.
    package static func varyNames(_ fields: HTTPHeaderFields) -> [String]? {
        var names: [String] = []
        for value in fields.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let name = CacheControl.trimmed(name).lowercased()
                if name == "*" { return nil }
                if !name.isEmpty, !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// A request field's value for comparison: repeated fields joined, the spaces around commas trimmed (§4.1);
    /// for `Accept-Language` and `Accept-Encoding`, whose members are case-insensitive and whose order says nothing
    /// (each member carries its own weight), the members lowercased and sorted too.
    static func normalized(_ fields: HTTPHeaderFields, _ name: String) -> String? {
        let values = fields.values(for: name)
        guard !values.isEmpty else { return nil }
        let members = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { CacheControl.trimmed($0) }
        guard unorderedFields.contains(name.lowercased()) else { return members.joined(separator: ",") }
        return members.filter { !$0.isEmpty }.map { $0.lowercased() }.sorted().joined(separator: ",")
    }

    /// Request fields whose list members are compared without regard to order or case.
    private static let unorderedFields: Set<String> = ["accept-language", "accept-encoding"]

    /// The bytes the entry holds: body, each header field as it would go on the wire, the kept request values.
    func measure() -> Int {
        var bytes = body.count + owner.byteCount
        for field in head.headerFields { bytes += field.name.utf8.count + field.value.utf8.count + 4 }
        return bytes
    }
}

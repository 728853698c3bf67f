import CLibFuzzer
import FuzzSupport
import NetCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base URLs the targets resolve against: none, a plain one, one with a query, an IPv6 host with a port.
let bases: [URL?] = [
    nil, URL(string: "https://api.example.com/v1/users?page=1"), URL(string: "http://[::1]:8080/a/b/c"),
    URL(string: "https://example.com"),
]

/// LinkHeader: any `Link` field values are read without a crash, within the limits, and every time:
/// - at most `maxLinks` links, and no more target bytes than `maxBytes` bytes examined;
/// - parameter names are non-empty lowercase tokens; relation types are lowercase, non-empty, without spaces;
/// - `first(relation:)` finds a link that has the relation, and `links(relation:)` only such links;
/// - the same input read twice gives the same links.
///
/// Input: byte 0 picks `maxLinks` (0…63), byte 1 `maxBytes` (0…4080, by 16), byte 2 the base URL; the rest is the
/// field values separated by NUL bytes, at most 16.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limits = LinkHeader.Limits(maxBytes: Int(input.byte()) * 16, maxLinks: Int(input.byte() % 64))
    let base = bases[Int(input.byte()) % bases.count]
    var values: [String] = []
    while !input.rest.isEmpty && values.count < 16 { values.append(input.string()) }
    let header = LinkHeader(fieldValues: values, base: base, limits: limits)
    check(header.links.count <= limits.maxLinks, "\(header.links.count) links over a limit of \(limits.maxLinks)")
    let targetBytes = header.links.reduce(0) { $0 + $1.target.utf8.count }
    check(targetBytes <= limits.maxBytes, "\(targetBytes) target bytes over a limit of \(limits.maxBytes)")
    for link in header.links {
        for parameter in link.parameters {
            check(!parameter.name.isEmpty, "an empty parameter name")
            check(
                parameter.name == ascii(parameter.name, upper: false), "parameter \(parameter.name) is not lowercased")
        }
        for relation in link.relations {
            check(!relation.isEmpty && !relation.contains(" "), "relation \(relation.debugDescription)")
            check(relation == ascii(relation, upper: false), "relation \(relation) is not lowercased")
            check(
                header.first(relation: relation)?.hasRelation(relation) == true, "first(relation:) missed \(relation)")
            let shouted = header.links(relation: ascii(relation, upper: true))
            check(
                !shouted.isEmpty && shouted.allSatisfy { $0.hasRelation(relation) }, "links(relation:) for \(relation)")
        }
        _ = link.url?.absoluteString
        _ = link.anchor
    }
    check(LinkHeader(fieldValues: values, base: base, limits: limits) == header, "a second read differs")
    return 0
}

/// `text` with its ASCII letters in one case; other characters as they are (relation types compare so).
func ascii(_ text: String, upper: Bool) -> String {
    String(
        decoding: text.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z") where upper: byte - 0x20
            case UInt8(ascii: "A")...UInt8(ascii: "Z") where !upper: byte + 0x20
            default: byte
            }
        }, as: UTF8.self)
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_link_header_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzLinkHeader)
}

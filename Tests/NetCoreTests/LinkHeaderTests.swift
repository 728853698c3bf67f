import Foundation
import Testing
import NetCore

@Suite("Link header parsing (RFC 8288 §3)")
struct LinkHeaderTests {
    let base = URL(string: "https://api.example.com/v1/users?page=1")!

    @Test("several link-values in one field, in order, targets resolved")
    func oneField() throws {
        let field =
            #"<https://api.example.com/v1/users?page=2>; rel="next", "#
            + #"<https://api.example.com/v1/users?page=9>; rel="last""#
        let header = LinkHeader(fieldValues: [field], base: base)
        #expect(
            header.links.map(\.target) == [
                "https://api.example.com/v1/users?page=2", "https://api.example.com/v1/users?page=9",
            ])
        #expect(header.first(relation: "next")?.url?.absoluteString == "https://api.example.com/v1/users?page=2")
        #expect(header.first(relation: "last")?.relations == ["last"])
        #expect(header.first(relation: "prev") == nil)
    }

    @Test("link-values across several Link fields, read from header fields in order")
    func severalFields() throws {
        var fields = HTTPHeaderFields()
        try fields.append(HTTPHeaderField(name: "Link", value: "</a>; rel=prev"))
        try fields.append(HTTPHeaderField(name: "Content-Type", value: "application/json"))
        try fields.append(HTTPHeaderField(name: "link", value: "</b>; rel=next, </c>; rel=last"))
        let header = LinkHeader(fields, base: base)
        #expect(header.links.map(\.target) == ["/a", "/b", "/c"])
        #expect(header.first(relation: "next")?.url?.absoluteString == "https://api.example.com/b")
    }

    @Test("token and quoted parameters; names lowercased; a name alone has no value")
    func parameters() throws {
        let link = try #require(
            LinkHeader(fieldValues: [#"<x>;REL=next ; Title="Page two" ;type=application/json; hidden"#]).links.first)
        #expect(link.relations == ["next"])
        #expect(link.parameter("title") == "Page two")
        #expect(link.parameter("TYPE") == "application/json")
        #expect(link.parameters.map(\.name) == ["rel", "title", "type", "hidden"])
        #expect(link.parameters.last?.value == nil)
        #expect(link.url == nil, "a relative target without a base has no URL")
    }

    @Test("rel with several space-separated types, compared case-insensitively; a second rel is ignored")
    func relationTypes() throws {
        let link = try #require(
            LinkHeader(fieldValues: [#"</p/2>; rel="Next  LAST"; rel="prev""#], base: base).links.first)
        #expect(link.relations == ["next", "last"])
        #expect(link.hasRelation("NEXT") && link.hasRelation("last"))
        #expect(!link.hasRelation("prev"), "RFC 8288 §3.3: occurrences after the first rel are ignored")
    }

    @Test("quoted-string escapes; commas and semicolons inside quotes and inside <...>")
    func delimitersInside() throws {
        let header = LinkHeader(
            fieldValues: [
                #"</search?q=a,b;c>; title="say \"hi\", then; go \\ home"; rel=next, </other>; rel="last""#
            ], base: base)
        #expect(header.links.count == 2)
        let next = try #require(header.first(relation: "next"))
        #expect(next.target == "/search?q=a,b;c")
        #expect(next.parameter("title") == #"say "hi", then; go \ home"#)
        #expect(header.first(relation: "last")?.target == "/other")
    }

    @Test("relative references resolve against the URL that answered (RFC 3986 §5), query kept as written")
    func relativeResolution() {
        let header = LinkHeader(
            fieldValues: [
                "<?page=2&q=a%2Bb>; rel=next, <../teams?page=3>; rel=other",
                "<//cdn.example.com/x>; rel=cdn, <page/4>; rel=four",
            ], base: base)
        #expect(
            header.first(relation: "next")?.url?.absoluteString == "https://api.example.com/v1/users?page=2&q=a%2Bb")
        #expect(header.first(relation: "other")?.url?.absoluteString == "https://api.example.com/teams?page=3")
        #expect(header.first(relation: "cdn")?.url?.absoluteString == "https://cdn.example.com/x")
        #expect(header.first(relation: "four")?.url?.absoluteString == "https://api.example.com/v1/page/4")
    }

    @Test(
        "malformed link-values are skipped, the good ones around them kept",
        arguments: [
            #"garbage, </ok>; rel=next"#,
            #"</ok>; rel=next, <unclosed"#,
            #"</bad> junk; rel=prev, </ok>; rel=next"#,
            #"</bad>; =value, </ok>; rel=next"#,
            #",,, ;;, </ok>;; rel=next ;, "bare quoted, still""#,
        ])
    func malformedSkipped(field: String) throws {
        let header = LinkHeader(fieldValues: [field], base: base)
        #expect(header.first(relation: "next")?.target == "/ok")
        #expect(!header.links.contains { $0.target == "/bad" })
    }

    @Test("an unterminated quoted string swallows the rest of its field, never a crash")
    func unterminatedQuote() {
        let header = LinkHeader(fieldValues: [#"</bad>; rel="never closed, </ok>; rel=next"#, "</ok2>; rel=next"])
        #expect(header.links.map(\.target) == ["/ok2"])
    }

    @Test("empty and whitespace-only fields yield no links")
    func empty() {
        #expect(LinkHeader(fieldValues: ["", "  ", ","]).links.isEmpty)
        #expect(LinkHeader(HTTPHeaderFields()).links.isEmpty)
    }

    @Test("hostile input: link-values and bytes examined are capped")
    func bounded() {
        let many = Array(repeating: "</x>; rel=next", count: 10_000).joined(separator: ", ")
        let header = LinkHeader(fieldValues: [many], limits: LinkHeader.Limits(maxBytes: 1 << 20, maxLinks: 100))
        #expect(header.links.count == 100)

        let cut = LinkHeader(
            fieldValues: ["</a>; rel=next, </bbbbbbbbbb>; rel=last"], limits: LinkHeader.Limits(maxBytes: 20))
        #expect(cut.links.map(\.target) == ["/a"], "the link-value cut by the byte limit is skipped")

        let fields = Array(repeating: "</y>; rel=next", count: 1_000)
        let capped = LinkHeader(fieldValues: fields, limits: LinkHeader.Limits(maxBytes: 140, maxLinks: 1_000))
        #expect(capped.links.count == 10, "140 bytes hold ten 14-byte fields")

        let quotes = "<" + String(repeating: "\\\"", count: 50_000) + ">; " + String(repeating: "\"", count: 50_001)
        #expect(LinkHeader(fieldValues: [quotes]).links.count <= 1)
        #expect(LinkHeader(fieldValues: [String(repeating: ";", count: 100_000)]).links.isEmpty)
        #expect(LinkHeader(fieldValues: [String(repeating: "<", count: 100_000)]).links.isEmpty)
    }

    @Test("the anchor parameter is kept, so a caller can tell a link about another resource")
    func anchor() throws {
        let link = try #require(LinkHeader(fieldValues: [##"</x>; rel=next; anchor="#frag""##]).links.first)
        #expect(link.anchor == "#frag")
    }
}

import Foundation
import NetCore
import Testing

/// `Endpoint`'s default decoding by the kind of `Response`: bytes, text, untyped JSON, JSON.
@Suite("Response kinds")
struct ResponseKindTests {
    struct Bytes: Endpoint {
        typealias Response = Data
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    struct Text: Endpoint {
        typealias Response = String
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    struct Untyped: Endpoint {
        typealias Response = JSONValue
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    struct Typed: Endpoint {
        typealias Response = Item
        var path: String { "/file" }
        var method: HTTPMethod { .get }
    }

    func response(_ body: Data?, contentType: String? = nil) throws -> ReceivedResponse {
        let fields = contentType.map { [(name: "Content-Type", value: $0)] } ?? []
        return ReceivedResponse(
            head: HTTPResponseHead(statusCode: 200, reasonPhrase: "OK", headerFields: try HTTPHeaderFields(fields)),
            body: body)
    }

    func text(_ bytes: [UInt8], _ contentType: String?) throws -> String {
        try Text().decode(try response(Data(bytes), contentType: contentType), decoder: nil)
    }

    @Test("Data gets the body's bytes as they are, JSON or not")
    func data() throws {
        let bytes = Data([0x00, 0xFF, 0x7B, 0x0D, 0x0A])
        #expect(try Bytes().decode(try response(bytes, contentType: "application/json"), decoder: nil) == bytes)
    }

    @Test("an empty or absent body is an empty value for Data and String, not emptyResponse")
    func emptyBodies() throws {
        #expect(try Bytes().decode(try response(Data()), decoder: nil) == Data())
        #expect(try Bytes().decode(try response(nil), decoder: nil) == Data())
        #expect(try Text().decode(try response(Data()), decoder: nil) == "")
        #expect(try Text().decode(try response(nil, contentType: "text/plain; charset=bogus"), decoder: nil) == "")
    }

    @Test("an empty body is emptyResponse for JSONValue and other JSON types")
    func emptyJSON() throws {
        #expect(throws: NetworkError.emptyResponse) { try Untyped().decode(try response(Data()), decoder: nil) }
        #expect(throws: NetworkError.emptyResponse) { try Typed().decode(try response(nil), decoder: nil) }
    }

    @Test("String is UTF-8 without a charset; a leading byte order mark is dropped")
    func utf8Default() throws {
        #expect(try text(Array("café ✓".utf8), nil) == "café ✓")
        #expect(try text(Array("naïve".utf8), "text/plain") == "naïve")
        #expect(try text([0xEF, 0xBB, 0xBF] + Array("x".utf8), nil) == "x")
    }

    @Test("String follows the Content-Type's charset, quoted or not, in any case")
    func charsets() throws {
        #expect(try text([0x63, 0x61, 0x66, 0xE9], "text/plain; charset=ISO-8859-1") == "café")
        #expect(try text([0x63, 0x61, 0x66, 0xE9], #"text/plain;format=flowed; Charset="latin1""#) == "café")
        #expect(try text([0x80, 0x20, 0x93, 0x71, 0x94], "text/html; charset=windows-1252") == "€ \u{201C}q\u{201D}")
        #expect(try text([0x81], "text/plain; charset=cp1252") == "\u{81}")
        #expect(try text([0xFE, 0xFF, 0x00, 0x41], "text/plain; charset=utf-16") == "A")
        #expect(try text([0xFF, 0xFE, 0x41, 0x00], "text/plain; charset=utf-16") == "A")
        #expect(try text([0x41, 0x00, 0x42, 0x00], "text/plain; charset=utf-16") == "AB")
        #expect(try text([0x00, 0x41], "text/plain; charset=UTF-16BE") == "A")
        #expect(try text(Array("ok".utf8), "text/plain; charset=utf-8") == "ok")
    }

    @Test("bytes that are not text in the charset are a typed error naming the charset")
    func undecodable() throws {
        #expect(throws: ResponseDecodingError.undecodableText(charset: "utf-8")) { try text([0x66, 0xC3, 0x28], nil) }
        #expect(throws: ResponseDecodingError.undecodableText(charset: "UTF-8")) {
            try text([0xFF], "text/plain; charset=UTF-8")
        }
        let error = ResponseDecodingError.undecodableText(charset: "utf-8")
        #expect(error.description == "The response body is not valid utf-8 text")
    }

    @Test("a charset NetKit cannot decode is a typed error, not a guess")
    func unsupported() throws {
        #expect(throws: ResponseDecodingError.unsupportedCharset("x-klingon")) {
            try text([0x41], "text/plain; charset=x-klingon")
        }
    }

    @Test("the charset parameter is found among others, and only by its name")
    func charsetParameter() {
        #expect(ResponseText.charset(in: "text/plain") == nil)
        #expect(ResponseText.charset(in: "text/plain; format=flowed") == nil)
        #expect(ResponseText.charset(in: "text/plain; xcharset=a; charset = \"b\" ") == "b")
        #expect(ResponseText.charset(in: "text/plain; charset=") == nil)
    }

    @Test("JSONValue decodes any JSON with the request's decoder")
    func untyped() throws {
        let value = try Untyped().decode(try response(Data(#"{"a":[1,true,null]}"#.utf8)), decoder: nil)
        #expect(value == ["a": [1, true, nil]])
        #expect(try Untyped().decode(try response(Data("12".utf8)), decoder: JSONDecoder()) == 12)
    }

    @Test("other types are JSON as before: a body that is not JSON is a DecodingError")
    func typed() throws {
        #expect(
            try Typed().decode(try response(Data(#"{"id":1,"name":"a"}"#.utf8)), decoder: nil) == Item(id: 1, name: "a")
        )
        #expect(throws: DecodingError.self) { try Typed().decode(try response(Data("<html>".utf8)), decoder: nil) }
    }
}

import Foundation
import NetMultipart
import Testing

@Suite("encodedLength")
struct MultipartEncodedLengthTests {
    static let shapes: [(label: String, form: MultipartFormData)] = {
        func form(_ boundary: String? = nil, _ build: (inout MultipartFormData) -> Void) -> MultipartFormData {
            var form = boundary.map { MultipartFormData(boundary: $0) } ?? MultipartFormData()
            build(&form)
            return form
        }
        return [
            ("empty, fixed boundary", form("B") { _ in }),
            ("empty, UUID boundary", form { _ in }),
            ("one field", form { $0.addField(name: "a", value: "b") }),
            ("field with MIME type", form { $0.addPart(name: "a", data: Data("b".utf8), mimeType: "text/plain") }),
            (
                "file without MIME type",
                form { $0.addPart(name: "f", data: Data([1, 2, 3]), mimeType: "", filename: "f.bin") }
            ),
            ("empty filename and data", form { $0.addPart(name: "f", data: Data(), mimeType: "", filename: "") }),
            (
                "escaped name and filename",
                form {
                    $0.addPart(name: #"q"u\o"t"e"#, data: Data("x".utf8), mimeType: "text/plain", filename: #"\\"""#)
                }
            ),
            (
                "non-ASCII",
                form {
                    $0.addPart(
                        name: "名前", data: Data("ü".utf8), mimeType: "text/plain; charset=utf-8",
                        filename: "résumé ✓.pdf")
                }
            ),
            ("quoted boundary", form("with space:=?") { $0.addField(name: "a", value: "b") }),
            ("70-character boundary", form(String(repeating: "x", count: 70)) { $0.addField(name: "a", value: "b") }),
            (
                "large binary part",
                form {
                    $0.addPart(
                        name: "big", data: Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
                        mimeType: "", filename: "big")
                }
            ),
            (
                "many parts",
                form { form in
                    for index in 0..<50 {
                        form.addPart(
                            name: "part\(index)",
                            data: Data(repeating: UInt8(index), count: index),
                            mimeType: index.isMultiple(of: 3) ? "" : "application/x-\(index)",
                            filename: index.isMultiple(of: 2) ? "file\(index).bin" : nil
                        )
                    }
                }
            ),
        ]
    }()

    @Test("encodedLength equals encoded().count", arguments: shapes)
    func lengthMatchesBody(label: String, form: MultipartFormData) throws {
        #expect(form.encodedLength == (try form.encoded().count), "\(label)")
    }

    @Test("encodedLength grows by exactly the data size")
    func lengthTracksDataSize() {
        var small = MultipartFormData(boundary: "B")
        small.addPart(name: "d", data: Data(count: 10), mimeType: "")
        var large = MultipartFormData(boundary: "B")
        large.addPart(name: "d", data: Data(count: 1_000_010), mimeType: "")
        #expect(large.encodedLength - small.encodedLength == 1_000_000)
    }
}

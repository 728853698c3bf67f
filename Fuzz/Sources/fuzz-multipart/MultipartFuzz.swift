import CLibFuzzer
import FuzzSupport
import NetMultipart

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// MultipartFormData: any boundary, names, file names, MIME types and contents either encode or throw; an encoded
/// body is exactly `encodedLength` bytes, opens with the boundary's delimiter and ends with its close delimiter.
/// Input: boundary, then (name, filename, MIME type, data) four-field groups, fields separated by NUL bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let boundaryText = input.string()
    let form: MultipartFormData
    if boundaryText.isEmpty {
        form = MultipartFormData()
    } else {
        do {
            form = try MultipartFormData(validatingBoundary: boundaryText)
        } catch {
            _ = error.localizedDescription
            return 0
        }
    }
    var filled = form
    while !input.rest.isEmpty && filled.parts.count < 16 {
        let name = input.string()
        let filename = input.string()
        let mimeType = input.string()
        let content = Data(input.field())
        if filename.isEmpty && mimeType.isEmpty {
            filled.addField(name: name, value: String(decoding: content, as: UTF8.self))
        } else {
            filled.addPart(name: name, data: content, mimeType: mimeType, filename: filename.isEmpty ? nil : filename)
        }
    }
    let length = filled.encodedLength
    _ = filled.contentType
    do {
        let body = try filled.encoded()
        check(body.count == length, "encoded \(body.count) bytes, encodedLength says \(length)")
        let close = Data("--\(filled.boundary)--\r\n".utf8)
        check(body.count >= close.count && body.suffix(close.count) == close, "the body does not end with \(close)")
        if !filled.parts.isEmpty {
            let open = Data("--\(filled.boundary)\r\n".utf8)
            check(body.prefix(open.count) == open, "the body does not open with the boundary delimiter")
        }
    } catch {
        _ = error.localizedDescription
    }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_multipart_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzMultipart)
}

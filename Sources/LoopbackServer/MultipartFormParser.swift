import Foundation

/// A strict, independent `multipart/form-data` decoder (RFC 7578 on top of RFC 2046 §5.1).
///
/// It exists to check an encoder, so it rejects what a conforming composer never produces
/// instead of recovering from it.
enum MultipartFormParser {
    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let dashes: [UInt8] = [0x2D, 0x2D]

    static func parse(body: [UInt8], contentType: String?) throws(LoopbackMultipartError) -> [LoopbackMultipartPart] {
        let boundary = try boundary(from: contentType)
        let dashBoundary = dashes + Array(boundary.utf8)
        let delimiter = crlf + dashBoundary
        guard body.starts(with: dashBoundary) else { throw .missingOpeningDelimiter }
        var position = dashBoundary.count
        var parts: [LoopbackMultipartPart] = []
        // Every round moves `position` past at least one delimiter, so rounds < body.count.
        while true {
            if matches(body, at: position, dashes) {
                guard !parts.isEmpty else { throw .malformedDelimiter(offset: position) }
                let epilogue = body[(position + 2)...]
                guard epilogue.isEmpty || epilogue.elementsEqual(crlf) else { throw .unexpectedEpilogue }
                return parts
            }
            guard position < body.count else { throw .missingCloseDelimiter }
            guard matches(body, at: position, crlf) else { throw .malformedDelimiter(offset: position) }
            position += 2
            let headers = try parseHeaders(body, &position)
            guard let end = find(delimiter, in: body, from: position) else { throw .missingCloseDelimiter }
            let data = body[position..<end]
            position = end + delimiter.count
            parts.append(try makePart(headers: headers, data: data))
        }
    }

    /// The validated boundary of a `multipart/form-data` content type.
    static func boundary(from contentType: String?) throws(LoopbackMultipartError) -> String {
        guard let contentType, let parsed = HeaderParameterParser.parse(contentType),
            parsed.value.lowercased() == "multipart/form-data"
        else { throw .notMultipartFormData(contentType: contentType) }
        let candidates = parsed.parameters.filter { $0.name == "boundary" }
        guard candidates.count == 1, let boundary = candidates.first?.value else { throw .invalidBoundary(nil) }
        // RFC 2046: 1 to 70 bchars, not ending in a space.
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(allowed.contains),
            boundary.utf8.last != UInt8(ascii: " ")
        else { throw .invalidBoundary(boundary) }
        return boundary
    }

    /// Reads header lines up to and including the empty line; `position` ends at the first content byte.
    private static func parseHeaders(
        _ body: [UInt8],
        _ position: inout Int
    ) throws(LoopbackMultipartError) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        // Each round consumes one CRLF-terminated line, so rounds are bounded by the body length.
        while true {
            let lineStart = position
            guard let lineEnd = find(crlf, in: body, from: position) else {
                throw .malformedPartHeader(offset: lineStart)
            }
            position = lineEnd + 2
            if lineEnd == lineStart { return headers }
            headers.append(try headerField(body[lineStart..<lineEnd], offset: lineStart))
        }
    }

    /// One part header line (without its CRLF); `offset` is where it starts in the body, for the error.
    static func headerField(
        _ line: ArraySlice<UInt8>,
        offset: Int
    ) throws(LoopbackMultipartError) -> (name: String, value: String) {
        let lineStart = line.startIndex
        // Folding (a line starting with whitespace) is obsolete and never produced by a conforming encoder.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > lineStart,
            line[lineStart..<colon].allSatisfy(HeaderParameterParser.isToken),
            !line.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
        else { throw .malformedPartHeader(offset: offset) }
        let rawValue = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
        let trimmed = rawValue.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard let name = String(validating: line[lineStart..<colon], as: UTF8.self),
            let value = String(validating: Array(trimmed), as: UTF8.self)
        else { throw .malformedPartHeader(offset: offset) }
        return (name: name, value: value)
    }

    /// What a part's headers say about it.
    struct PartDescription: Sendable {
        let name: String
        let filename: String?
        let contentType: String?
    }

    /// Checks a part's headers: exactly one `Content-Disposition: form-data` with a `name`, at most one `Content-Type`.
    static func describe(
        headers: [(name: String, value: String)]
    ) throws(LoopbackMultipartError) -> PartDescription {
        let dispositions = headers.filter { $0.name.lowercased() == "content-disposition" }
        guard dispositions.count == 1, let disposition = dispositions.first?.value,
            let parsed = HeaderParameterParser.parse(disposition),
            parsed.value.lowercased() == "form-data"
        else { throw .invalidContentDisposition(dispositions.first?.value) }
        guard let name = parsed.parameters.first(where: { $0.name == "name" })?.value else { throw .missingName }
        let filename = parsed.parameters.first { $0.name == "filename" }?.value
        let contentTypes = headers.filter { $0.name.lowercased() == "content-type" }
        guard contentTypes.count <= 1 else { throw .malformedPartHeader(offset: 0) }
        return PartDescription(name: name, filename: filename, contentType: contentTypes.first?.value)
    }

    private static func makePart(
        headers: [(name: String, value: String)],
        data: ArraySlice<UInt8>
    ) throws(LoopbackMultipartError) -> LoopbackMultipartPart {
        let description = try describe(headers: headers)
        return LoopbackMultipartPart(
            name: description.name,
            filename: description.filename,
            contentType: description.contentType,
            headers: headers,
            data: Data(data)
        )
    }

    private static func matches(_ body: [UInt8], at position: Int, _ pattern: [UInt8]) -> Bool {
        position + pattern.count <= body.count && body[position..<(position + pattern.count)].elementsEqual(pattern)
    }

    /// First occurrence of `pattern` at or after `start`.
    private static func find(_ pattern: [UInt8], in body: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, body.count >= pattern.count else { return nil }
        var index = start
        let last = body.count - pattern.count
        while index <= last {
            if body[index] == first, matches(body, at: index, pattern) { return index }
            index += 1
        }
        return nil
    }
}

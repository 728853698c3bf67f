import NetCore

/// Splits a `Set-Cookie` value that a stack joined from several fields (`a=1; Path=/, b=2`) back into one value per
/// cookie. Pure, tested without I/O.
///
/// A comma separates two cookies only when a `name=` follows it; the comma inside an `Expires` date
/// (`Expires=Wed, 21 Oct 2026 07:28:00 GMT`) is followed by a day number and a space, and stays.
enum SetCookieSplitting {
    static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        var cookies: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ","), startsCookie(bytes, at: index + 1) {
                appendTrimmed(bytes[start..<index], to: &cookies)
                start = index + 1
            }
            index += 1
        }
        appendTrimmed(bytes[start..<bytes.count], to: &cookies)
        return cookies
    }

    /// Whether `bytes` from `position` hold optional spaces, a cookie name (an RFC 9110 token) and `=`.
    private static func startsCookie(_ bytes: [UInt8], at position: Int) -> Bool {
        var index = position
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
        let nameStart = index
        while index < bytes.count, HeaderValidation.isTokenByte(bytes[index]) { index += 1 }
        return index > nameStart && index < bytes.count && bytes[index] == UInt8(ascii: "=")
    }

    private static func appendTrimmed(_ slice: ArraySlice<UInt8>, to cookies: inout [String]) {
        var slice = slice
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            slice = slice.dropFirst()
        }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            slice = slice.dropLast()
        }
        if !slice.isEmpty { cookies.append(String(decoding: slice, as: UTF8.self)) }
    }
}

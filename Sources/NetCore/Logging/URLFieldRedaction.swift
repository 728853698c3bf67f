/// The header fields whose value carries a URL, with that URL's query rewritten before the value is shown: a signed
/// link's signature (`Location`, `Content-Location`, `Link`) or a token of the page a request came from (`Referer`)
/// travels there, outside the request's own URL, and must be hidden wherever that URL's query would be.
package enum URLFieldRedaction {
    /// The fields whose value is one URL, lowercased; `Refresh` (`5; url=…`) included, since its only `?` is its
    /// URL's.
    package static let singleURLFields: Set<String> = ["location", "content-location", "referer", "refresh"]

    /// `value` of the field `name` with the query of each URL it carries replaced by `redactQuery` of it (`?` and
    /// fragment kept); `nil` when the field carries no URL.
    package static func redact(name: String, value: String, query redactQuery: (Substring) -> String) -> String? {
        let lowered = HeaderValidation.lowercased(name)
        if singleURLFields.contains(lowered) { return redactingQuery(of: value, redactQuery) }
        guard lowered == "link" else { return nil }
        // RFC 8288: `<url>; rel="next", <url>; …`; only what stands between `<` and `>` is a URL.
        var result = ""
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            result += rest[...open]
            result += redactingQuery(of: String(rest[rest.index(after: open)..<close]), redactQuery)
            rest = rest[close...]
        }
        return result + rest
    }

    /// `url` (absolute or relative) with its query, from the first `?` to a `#`, replaced by `redactQuery` of it; the
    /// rest, percent-encoding included, as it is.
    package static func redactingQuery(of url: String, _ redactQuery: (Substring) -> String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let afterQuestion = url.index(after: question)
        let fragment = url[afterQuestion...].firstIndex(of: "#") ?? url.endIndex
        return String(url[..<afterQuestion]) + redactQuery(url[afterQuestion..<fragment]) + String(url[fragment...])
    }
}

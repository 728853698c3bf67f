import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension HTTPResponseHead {
    /// The head of a URLSession response.
    ///
    /// URLSession joins repeated fields into one (`a, b`); `Set-Cookie` fields are split apart again (see
    /// `SetCookieSplitting`), so every cookie arrives as a field of its own. Fields whose name or value NetKit would
    /// refuse to send are left out.
    public init(_ response: HTTPURLResponse) {
        var fields = HTTPHeaderFields()
        let all = response.allHeaderFields
        fields.reserveCapacity(all.count)
        // Sorted by name: the dictionary's order changes from run to run, the fields' must not.
        let pairs = all.compactMap { key, value in
            (key as? String).map { ($0, value as? String ?? String(describing: value)) }
        }.sorted { $0.0 < $1.0 }
        for (name, text) in pairs {
            if HeaderValidation.namesMatch(name, "Set-Cookie") {
                for cookie in SetCookieSplitting.split(text) {
                    if let field = try? HTTPHeaderField(name: name, value: cookie) { fields.append(field) }
                }
            } else if let field = try? HTTPHeaderField(name: name, value: text) {
                fields.append(field)
            }
        }
        self.init(statusCode: response.statusCode, reasonPhrase: "", headerFields: fields)
    }
}

extension HTTPURLResponse {
    /// A `URLResponse` for `head` from `url`, for EKNetwork's `decodeResponse(data:response:)` and
    /// `emptyResponseHandler`: repeated fields joined (`Set-Cookie` too, as URLSession joins them).
    public convenience init?(_ head: HTTPResponseHead, url: URL) {
        var fields: [String: String] = [:]
        fields.reserveCapacity(head.headerFields.count)
        for field in head.headerFields {
            if let existing = fields[field.name] {
                fields[field.name] = existing + ", " + field.value
            } else {
                fields[field.name] = field.value
            }
        }
        self.init(url: url, statusCode: head.statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}

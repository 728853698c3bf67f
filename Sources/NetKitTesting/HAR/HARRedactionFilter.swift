import Foundation

/// What a recorded body goes through before it is written, chosen by its `Content-Type`: a form body has its named
/// fields redacted; every other body is read as JSON whatever its type says (a body sent without a `Content-Type`, or
/// as `text/plain`, can still carry a password), and one that turns out not to be JSON is kept as it is from there.
enum HARRedactionFilter {
    case json(HARRedactionJSON)
    case form(HARRedactionForm)

    /// The filter for a body of `contentType` (a `Content-Type` value, parameters allowed; `nil` when absent).
    init(contentType: String?, redaction: HARRedaction) {
        let redacts: @Sendable (String) -> Bool = { redaction.redactsJSONField($0) }
        switch Self.kind(of: contentType) {
        case .json: self = .json(HARRedactionJSON(redacts: redacts))
        case .form: self = .form(HARRedactionForm(redacts: redacts))
        }
    }

    /// Appends `bytes`, redacted, to `output`.
    mutating func feed(_ bytes: Data, into output: inout Data) {
        switch self {
        case .json(var json):
            json.feed(bytes, into: &output)
            self = .json(json)
        case .form(var form):
            form.feed(bytes, into: &output)
            self = .form(form)
        }
    }

    /// Ends the body.
    mutating func finish() {
        if case .json(var json) = self {
            json.finish()
            self = .json(json)
        }
    }

    /// How many values were replaced so far.
    var redactions: Int {
        switch self {
        case .json(let json): json.redactions
        case .form(let form): form.redactions
        }
    }

    private enum Kind { case json, form }

    /// `application/x-www-form-urlencoded` (form); anything else, no type included, JSON.
    private static func kind(of contentType: String?) -> Kind {
        guard let contentType else { return .json }
        let type = (contentType.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        return type == "application/x-www-form-urlencoded" ? .form : .json
    }
}

/// A short account of a `DecodingError`: which case, where in the document, and the decoder's own words.
enum DecodingErrorSummary {
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .typeMismatch(type, context):
            "DecodingError.typeMismatch(\(type)) at \(path(context)): \(context.debugDescription)"
        case let .valueNotFound(type, context):
            "DecodingError.valueNotFound(\(type)) at \(path(context)): \(context.debugDescription)"
        case let .keyNotFound(key, context):
            "DecodingError.keyNotFound(\(key.stringValue)) at \(path(context)): \(context.debugDescription)"
        case let .dataCorrupted(context):
            "DecodingError.dataCorrupted at \(path(context)): \(context.debugDescription)"
        @unknown default:
            "DecodingError"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
    }
}

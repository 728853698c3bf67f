extension [String: String] {
    /// The value of a header whose name matches `name` case-insensitively (a transport may canonicalise names).
    package func value(forCaseInsensitiveKey name: String) -> String? {
        if let exact = self[name] { return exact }
        return first { HeaderValidation.namesMatch($0.key, name) }?.value
    }
}

extension MultipartEncodingError {
    /// The part header value that made encoding fail.
    public enum HeaderField: String, CaseIterable, Equatable, Hashable, Sendable, CustomStringConvertible {
        /// ``MultipartFormData/Part/name``, sent as `Content-Disposition: form-data; name="…"`.
        case name
        /// ``MultipartFormData/Part/filename``, sent as `; filename="…"`.
        case filename
        /// ``MultipartFormData/Part/mimeType``, sent as `Content-Type: …`.
        case mimeType

        /// The property name, so messages point at the API the caller actually used.
        public var description: String { rawValue }
    }
}

import NetCore

extension RequestBody {
    /// A `multipart/form-data` body (RFC 7578) with the form's boundary in its `Content-Type`.
    ///
    /// A form whose parts are all in memory is encoded into one buffer now, as EKNetwork sends it; a form with file
    /// or stream parts is sent as an ``UploadSource`` that reads each part when the transport asks for it, never
    /// assembled, so a form of any size costs one buffer.
    /// - Throws: ``NetworkError/invalidMultipartEncoding`` for a line break or NUL in a name, filename or MIME type,
    ///   or a part whose data holds the boundary.
    public init(multipart form: MultipartFormData) throws(NetworkError) {
        do {
            if form.parts.allSatisfy(\.isInMemory) {
                self.init(data: try form.encoded(), contentType: form.contentType)
            } else {
                self.init(source: try form.uploadSource(), contentType: form.contentType)
            }
        } catch {
            throw .invalidMultipartEncoding
        }
    }
}

/// MIME types by file extension, for file parts and file bodies that do not name their type.
///
/// A fixed table rather than the system's database: Linux images often lack
/// `/etc/mime.types`, and a table makes the answer the same on every platform and in tests.
package enum MIMETypeTable {
    /// The type sent when the extension is unknown (RFC 7578 §4.4 names it for files).
    package static let fallback = "application/octet-stream"

    /// The type for `pathExtension` (case-insensitive, without the dot), or ``fallback``.
    package static func mimeType(forPathExtension pathExtension: String) -> String {
        types[pathExtension.lowercased()] ?? fallback
    }

    private static let types: [String: String] = [
        // Text and documents
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "ics": "text/calendar", "vcf": "text/vcard",
        "xml": "application/xml", "json": "application/json", "jsonld": "application/ld+json",
        "ndjson": "application/x-ndjson", "yaml": "application/yaml", "yml": "application/yaml",
        "js": "text/javascript", "mjs": "text/javascript", "wasm": "application/wasm",
        "pdf": "application/pdf", "rtf": "application/rtf",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "epub": "application/epub+zip",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "7z": "application/x-7z-compressed", "zst": "application/zstd",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        "svg": "image/svg+xml", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
        "ico": "image/vnd.microsoft.icon",
        // Audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "weba": "audio/webm", "mid": "audio/midi", "midi": "audio/midi",
        // Video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "ogv": "video/ogg", "3gp": "video/3gpp",
        // Fonts and binaries
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "bin": "application/octet-stream",
    ]
}

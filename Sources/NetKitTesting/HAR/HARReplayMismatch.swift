/// No recorded exchange answers a request, in a strict replay: the request, and the nearest recorded one with how
/// the two differ.
///
/// ```text
/// No exchange in users.har matches GET /v1/users?page=3 (4 exchanges, matched by method, url).
/// Nearest: exchange 2, GET http://api.test/v1/users?page=2
///   - query item page: recorded "2", sent "3"
/// Record the fixture again (NETKIT_HAR_MODE=rerecord) if the request changed on purpose.
/// ```
public struct HARReplayMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    /// A recorded request that came nearest: the fewest differences.
    public struct Nearest: Sendable, Equatable {
        /// Its position in the archive, from 0.
        public let index: Int
        /// Its method.
        public let method: String
        /// Its URL, as recorded (redacted).
        public let url: String
        /// How the request differs from it, one line each.
        public let differences: [String]
    }

    /// The request's method.
    public let method: String
    /// The request's target, query values of credentials hidden.
    public let url: String
    /// The archive's file name.
    public let archive: String
    /// How many exchanges the archive holds.
    public let entryCount: Int
    /// What the replay matched by.
    public let matchers: [String]
    /// The nearest recorded request; `nil` for an empty archive.
    public let nearest: Nearest?

    /// The request, the nearest recorded one and how they differ, and what to do.
    public var description: String {
        var text =
            "No exchange in \(archive) matches \(method) \(url) (\(entryCount) exchange\(entryCount == 1 ? "" : "s"), "
            + "matched by \(matchers.joined(separator: ", ")))."
        if let nearest {
            text += "\nNearest: exchange \(nearest.index), \(nearest.method) \(nearest.url)"
            for difference in nearest.differences { text += "\n  - \(difference)" }
        }
        text += "\nRecord the fixture again (NETKIT_HAR_MODE=rerecord) if the request changed on purpose."
        return text
    }
}

/// A HAR file that cannot be replayed as it is.
public enum HARReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An exchange keeps its body in a file beside the archive (`_file`), but the replay was given the archive as a
    /// value without the folder to find the file in.
    case bodyFileWithoutFolder(String)
    /// An exchange names a body file (`_file`) outside the archive's folder: an absolute path, or one with `..`.
    case bodyFileOutsideFolder(String)

    /// What is wrong, and what to do.
    public var description: String {
        switch self {
        case .bodyFileWithoutFolder(let file):
            "An exchange keeps its body in \(file), beside its archive, but the replay has no folder to look in: "
                + "create it with HARReplayTransport(contentsOf:) or pass baseDirectory."
        case .bodyFileOutsideFolder(let file):
            "An exchange keeps its body in \(file), outside its archive's folder; a replay reads body files only from "
                + "beside the archive (a relative path without \"..\"). Move the file there and name it relatively."
        }
    }
}

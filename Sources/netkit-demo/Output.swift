import Foundation

/// Everything the demo prints goes through here, written straight to the file descriptor (no buffer): piped, the
/// title comes first and each line leaves as it happens; on a terminal the progress bar redraws one line.
enum Output {
    /// Whether standard output is a terminal: a piped demo prints a few progress lines instead of redrawing one.
    static let isTerminal = isatty(STDOUT_FILENO) == 1

    static func line(_ text: String) {
        write(text + "\n")
    }

    static func section(_ title: String) {
        line("\n== \(title)")
    }

    /// `text` drawn over the current line (no newline until ``endRedraw()``).
    static func redraw(_ text: String) {
        write("\r" + text)
    }

    static func endRedraw() {
        write("\n")
    }

    private static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// `1.23 s`.
    static func seconds(_ duration: Duration) -> String {
        let hundredths = milliseconds(of: duration) / 10
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) s"
    }

    /// `412 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        "\(milliseconds(of: duration)) ms"
    }

    private static func milliseconds(of duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

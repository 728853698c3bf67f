import Foundation

/// Data from outside the repository that cookie tests read when it is there: the Public Suffix List
/// (`public_suffix_list.dat`) and its test vectors (`test_psl.txt`) from publicsuffix/list. Tests that need it are
/// skipped without it.
///
/// The folder is `$NETKIT_COOKIE_TEST_DATA`, else `cookie-test-data` in the `shared/` folder beside the package;
/// `Scripts/cookie-test-data.sh` lays it out from checkouts of publicsuffix/list and abarth/http-state.
enum CookieTestData {
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["NETKIT_COOKIE_TEST_DATA"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.deletingLastPathComponent().appendingPathComponent("shared/cookie-test-data", isDirectory: true)
    }()

    /// The text of the file `name` in the folder, or `nil` when it is not there.
    static func text(_ name: String) -> String? {
        (try? Data(contentsOf: directory.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) }
    }
}

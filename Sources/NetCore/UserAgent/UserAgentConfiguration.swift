import Foundation  // Bundle: not in FoundationEssentials

/// The parts of the `User-Agent` header NetKit sends when a manager has a configuration.
///
/// ```swift
/// let agent = UserAgentConfiguration(appName: "Shop", appVersion: "2.1", buildNumber: "57")
/// agent.generateUserAgentString() // "Shop/2.1 (com.example.shop; build:57; Linux 6.1.0) NetKit/0.1.0"
/// ```
public struct UserAgentConfiguration: Sendable, Equatable {
    /// The application name.
    public let appName: String
    /// The application version.
    public let appVersion: String
    /// The bundle identifier.
    public let bundleIdentifier: String
    /// The build number.
    public let buildNumber: String
    /// The operating system version.
    public let osVersion: String
    /// The networking library's version.
    public let networkVersion: String
    /// The platform name: `iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS`, `Linux`, `Windows` or `Android`.
    public let platform: String

    /// Creates a configuration; each part that is `nil` comes from `Bundle.main`, the process or the system.
    public init(
        appName: String? = nil,
        appVersion: String? = nil,
        bundleIdentifier: String? = nil,
        buildNumber: String? = nil,
        osVersion: String? = nil,
        networkVersion: String? = nil
    ) {
        let info = Bundle.main.infoDictionary ?? [:]
        let processName = ProcessInfo.processInfo.processName
        self.appName = appName ?? info["CFBundleName"] as? String ?? processName
        self.appVersion = appVersion ?? info["CFBundleShortVersionString"] as? String ?? "1.0"
        self.bundleIdentifier = bundleIdentifier ?? Bundle.main.bundleIdentifier ?? processName
        self.buildNumber = buildNumber ?? info["CFBundleVersion"] as? String ?? "1"
        self.osVersion = osVersion ?? Self.systemVersion
        self.networkVersion = networkVersion ?? NetKitVersion.current
        self.platform = Self.currentPlatform
    }

    /// `AppName/Version (BundleID; build:BuildNumber; Platform OSVersion) NetKit/Version`, with CR, LF and
    /// other control characters removed so the string is always a valid header value.
    public func generateUserAgentString() -> String {
        let raw =
            "\(appName)/\(appVersion) (\(bundleIdentifier); build:\(buildNumber); \(platform) \(osVersion)) NetKit/\(networkVersion)"
        return String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }

    private static var systemVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    private static var currentPlatform: String {
        #if os(iOS)
        "iOS"
        #elseif os(macOS)
        "macOS"
        #elseif os(tvOS)
        "tvOS"
        #elseif os(watchOS)
        "watchOS"
        #elseif os(visionOS)
        "visionOS"
        #elseif os(Android)
        "Android"
        #elseif os(Linux)
        "Linux"
        #elseif os(Windows)
        "Windows"
        #else
        "Unknown"
        #endif
    }
}

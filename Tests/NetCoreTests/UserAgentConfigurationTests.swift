import Testing
import NetCore

@Suite("User-Agent")
struct UserAgentConfigurationTests {
    @Test("the string follows EKNetwork's format and names the real platform")
    func format() {
        let agent = UserAgentConfiguration(
            appName: "Shop", appVersion: "2.1", bundleIdentifier: "com.example.shop",
            buildNumber: "57", osVersion: "6.1.0", networkVersion: "9.9")
        #if os(Linux)
        #expect(agent.platform == "Linux")
        #expect(agent.generateUserAgentString() == "Shop/2.1 (com.example.shop; build:57; Linux 6.1.0) NetKit/9.9")
        #else
        #expect(agent.generateUserAgentString().hasPrefix("Shop/2.1 (com.example.shop; build:57; "))
        #endif
    }

    @Test("defaults come from the process and NetKit")
    func defaults() {
        let agent = UserAgentConfiguration()
        #expect(!agent.appName.isEmpty)
        #expect(agent.networkVersion == NetKitVersion.current)
        #expect(agent.generateUserAgentString().hasSuffix("NetKit/\(NetKitVersion.current)"))
    }

    @Test("control characters never reach the header")
    func sanitized() {
        let agent = UserAgentConfiguration(appName: "Evil\r\nX-Injected: 1", appVersion: "1")
        #expect(!agent.generateUserAgentString().unicodeScalars.contains { $0 == "\r" || $0 == "\n" })
    }
}

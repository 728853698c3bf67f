import Testing

@testable import NetCore

/// Hosts as resolvers read them, and which addresses a redirect may not reach with refusesPrivateAddresses on.
@Suite("IP addresses of redirect targets")
struct IPAddressTests {
    @Test(
        "private, loopback, link-local and reserved addresses, in every spelling a resolver accepts",
        arguments: [
            "127.0.0.1", "127.1", "2130706433", "0x7f.1", "0177.0.0.1", "0x7f000001", "10.0.0.1", "172.16.0.1",
            "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "0", "224.0.0.1",
            "255.255.255.255", "198.18.0.1", "127.0.0.1.", "::1", "[::1]", "::", "fe80::1", "fe80::1%eth0", "fc00::1",
            "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254",
            "64:ff9b::10.0.0.1",
            "2002:7f00:1::", "[0:0:0:0:0:0:0:1]",
        ])
    func privateHosts(_ host: String) throws {
        let address = try #require(IPAddress(host: host), "\(host) did not parse")
        #expect(address.isPrivate, "\(host)")
    }

    @Test(
        "public addresses",
        arguments: ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "172.32.0.1", "100.128.0.1"])
    func publicHosts(_ host: String) throws {
        let address = try #require(IPAddress(host: host))
        #expect(!address.isPrivate, "\(host)")
    }

    @Test(
        "names and broken literals are not addresses",
        arguments: [
            "example.com", "localhost", "1.2.3.4.5", "256.1.1.1", "1..1", "::1::", "12345::", "gggg::1", "08.1.1.1", "",
        ])
    func notAddresses(_ host: String) {
        #expect(IPAddress(host: host) == nil, "\(host)")
    }

    @Test("localhost names and literals are judged without a lookup")
    func resolution() async {
        #expect(await HostResolution.isPrivate("localhost"))
        #expect(await HostResolution.isPrivate("api.localhost."))
        #expect(await HostResolution.isPrivate("0x7f.1"))
        #expect(await HostResolution.isPrivate("[::1]"))
        #expect(await !HostResolution.isPrivate("8.8.8.8"))
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// Which connection settings ``URLSessionTransport`` can apply, decided from the settings, the request's scheme and
/// the process's environment alone (a plain value, tested without a network).
///
/// On Linux, FoundationNetworking hands every connection to libcurl with none of these settings: no server-trust
/// challenge (so no pins and no roots of a session's own), no client certificate, no TLS version, no HTTP version
/// (libcurl negotiates HTTP/2 over TLS where the server offers it), and `connectionProxyDictionary` unread (libcurl
/// reads the proxy environment itself, its own way). Each is refused, naming what would apply it.
///
/// On Apple platforms the session applies none of them per request either in this release: refused the same way,
/// so that no request goes out with less than it asked for.
package struct URLSessionConnectionSupport {
    /// The transport as the errors name it.
    package static let transportName: String = {
        #if canImport(FoundationNetworking)
        "URLSessionTransport on Linux"
        #else
        "URLSessionTransport"
        #endif
    }()

    /// The proxy variables libcurl reads for a URL of `scheme` (it ignores an upper-case `HTTP_PROXY`, which a CGI
    /// request's `Proxy` header could set).
    package static func libcurlProxyVariables(forScheme scheme: String) -> [String] {
        let own = scheme.lowercased() == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        return own + ["all_proxy", "ALL_PROXY"]
    }

    /// The refusal of the first setting of `connection` a request for `head` cannot have, given the process's
    /// `environment`; `nil` when there is none. TLS settings count only for an `https` URL, pins only for their
    /// hosts.
    package static func unsupportedSetting(
        in connection: ConnectionSettings, for head: HTTPRequestHead,
        environment: @autoclosure () -> [String: String]
    ) -> UnsupportedConnectionSettingError? {
        let asyncHTTPClient = "AsyncHTTPClientTransport (package trait AsyncHTTPClient) applies it"
        func refuse(_ setting: UnsupportedConnectionSettingError.Setting, _ reason: String, _ alternative: String)
            -> UnsupportedConnectionSettingError
        {
            UnsupportedConnectionSettingError(
                setting, transport: transportName, reason: reason, alternative: alternative)
        }
        let tls = connection.tls(for: head)
        if tls.trustedRoots != .system {
            #if canImport(FoundationNetworking)
            return refuse(
                .trustedRoots,
                "FoundationNetworking trusts the system's store alone (libcurl's CA bundle, such as "
                    + "/etc/ssl/certs/ca-certificates.crt); neither a session nor a request can add or replace roots",
                "\(asyncHTTPClient) per request; or add your CA to the system's store (update-ca-certificates) "
                    + "and leave trustedRoots at .system.")
            #else
            return refuse(
                .trustedRoots, "this release does not evaluate server trust per request on Apple platforms",
                "\(asyncHTTPClient); or handle server trust in a delegate of your own session.")
            #endif
        }
        if !tls.pins.isEmpty {
            #if canImport(FoundationNetworking)
            return refuse(
                .certificatePins,
                "FoundationNetworking never lets a session evaluate a server's certificate (it raises no "
                    + "server-trust challenge on Linux)",
                "AsyncHTTPClientTransport cannot pin either: trust only your own CA with "
                    + "tls.trustedRoots = .only([ca]) on it, or pin with a server-trust delegate on Apple platforms.")
            #else
            return refuse(
                .certificatePins, "this release does not evaluate server trust per request on Apple platforms",
                "Pin in a server-trust delegate of your own session, or trust only your own CA with "
                    + "tls.trustedRoots = .only([ca]) on AsyncHTTPClientTransport.")
            #endif
        }
        if tls.clientIdentity != nil {
            #if canImport(FoundationNetworking)
            return refuse(
                .clientIdentity,
                "FoundationNetworking never asks for a client certificate (it raises no client-certificate "
                    + "challenge on Linux)",
                "\(asyncHTTPClient).")
            #else
            return refuse(
                .clientIdentity, "this release does not answer client-certificate challenges on Apple platforms",
                "\(asyncHTTPClient); or answer the challenge in a delegate of your own session.")
            #endif
        }
        if let minimum = tls.minimumVersion {
            #if canImport(FoundationNetworking)
            return refuse(
                .minimumTLSVersion,
                "FoundationNetworking has no setting for the oldest TLS version (\(minimum.rawValue) was asked for); "
                    + "libcurl's own floor applies",
                "\(asyncHTTPClient).")
            #else
            return refuse(
                .minimumTLSVersion,
                "this release does not set a session's TLS versions per request on Apple platforms "
                    + "(\(minimum.rawValue) was asked for)",
                "\(asyncHTTPClient); or set tlsMinimumSupportedProtocolVersion on a session of your own.")
            #endif
        }
        if connection.httpVersion == .http1Only {
            return refuse(
                .httpVersion,
                "URLSession has no setting to keep a connection to HTTP/1.1; it speaks HTTP/2 over TLS where the "
                    + "server offers it",
                "\(asyncHTTPClient).")
        }
        switch connection.proxy {
        case nil:
            return nil
        case .direct:
            #if canImport(FoundationNetworking)
            // Read only here: copying the process's environment is the one cost of this check.
            let environment = environment()
            let set = libcurlProxyVariables(forScheme: head.scheme).filter { !(environment[$0] ?? "").isEmpty }
            guard let variable = set.first else { return nil }
            return refuse(
                .proxy,
                "a direct connection was asked for, but libcurl reads \(variable) from this process's environment "
                    + "and would use the proxy it names (FoundationNetworking cannot tell it otherwise)",
                "\(asyncHTTPClient) (it reads no environment); or unset \(variable).")
            #else
            return refuse(
                .proxy, "this release does not set a session's proxy on Apple platforms",
                "\(asyncHTTPClient); or set connectionProxyDictionary on a session of your own.")
            #endif
        case .http(let server), .socks5(let server):
            #if canImport(FoundationNetworking)
            return refuse(
                .proxy,
                "FoundationNetworking ignores a session's proxy settings (\(server) was asked for); libcurl only "
                    + "reads the environment",
                "\(asyncHTTPClient), HTTP CONNECT and SOCKS5 alike.")
            #else
            return refuse(
                .proxy, "this release does not set a session's proxy on Apple platforms (\(server) was asked for)",
                "\(asyncHTTPClient); or set connectionProxyDictionary on a session of your own.")
            #endif
        case .environment:
            // The engine reads the environment before asking; a transport called directly reads it here.
            return refuse(
                .proxy, "the proxy environment was not read for this request",
                "Send it through RequestExecutor or NetworkManager, which read it for each request and hop.")
        }
    }
}

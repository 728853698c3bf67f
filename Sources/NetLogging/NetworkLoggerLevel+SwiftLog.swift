#if Logging
import Logging
import NetCore

extension NetworkLogger.Level {
    /// The swift-log level NetKit writes a record of this level at: the same name (`debug`, `info`, `notice`,
    /// `error`).
    public var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .error: .error
        }
    }
}
#endif

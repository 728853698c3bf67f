/// Byte values the framing needs, named because bare hex literals hide intent.
enum ASCII {
    static let nul: UInt8 = 0x00
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let hyphen: UInt8 = 0x2D
    static let backslash: UInt8 = 0x5C
}

/// A tile or level that does not exist, or a parameter out of its range; messages name the valid range.
public enum PyramidError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    case levelOutOfRange(level: Int, maxLevel: Int)
    case tileOutOfRange(level: Int, columns: Int, rows: Int, x: Int, y: Int)
    case invalidParameter(name: String, message: String)

    public var description: String {
        switch self {
        case let .levelOutOfRange(level, maxLevel):
            return "level \(level) does not exist; levels run from 0 to \(maxLevel)"
        case let .tileOutOfRange(level, columns, rows, x, y):
            return "level \(level) has \(columns)×\(rows) tiles; asked for \(x),\(y)"
        case let .invalidParameter(name, message):
            return "\(name) \(message)"
        }
    }
}

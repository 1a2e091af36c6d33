/// One tile of a pyramid: DeepZoom level (0 is 1 × 1), column and row from the top-left.
public struct TileCoordinate: Hashable, Sendable, CustomStringConvertible {
    public var level: Int
    public var x: Int
    public var y: Int

    public init(level: Int, x: Int, y: Int) {
        self.level = level
        self.x = x
        self.y = y
    }

    public var description: String { "\(level)/\(x)/\(y)" }
}

/// The release this binary is: what `tileserver --version` prints and the `Server` header could name.
enum TileServerVersion {
    static let text = "0.9.0"
}

/// Why a build could not finish. Nothing of a failed build is left in the output directory.
enum BuildError: Swift.Error, Sendable, CustomStringConvertible {
    case output(path: String, reason: String)

    package var description: String {
        switch self {
        case let .output(path, reason): "cannot write \(path): \(reason)"
        }
    }
}

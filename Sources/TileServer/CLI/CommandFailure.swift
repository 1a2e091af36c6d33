/// A failure already phrased for the user.
struct CommandFailure: Swift.Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Why the server could not start.
package enum TransportError: Swift.Error, CustomStringConvertible {
    /// The address cannot be listened on (resolution, bind or listen failed), with the reason.
    case address(String)

    package var description: String {
        switch self {
        case let .address(message): "cannot listen on \(message)"
        }
    }
}

/// A zoom as a client asks for it: a number (screen pixels per image pixel) or one of the bounds by name.
public enum ZoomRequest: Hashable, Sendable {
    case fit
    case max
    case value(Double)

    /// Parses `fit`, `max` or a positive finite number.
    package init?(_ text: String) {
        switch text {
        case "fit", "min": self = .fit
        case "max": self = .max
        default:
            guard let z = Double(text), z.isFinite, z > 0 else { return nil }
            self = .value(z)
        }
    }
}

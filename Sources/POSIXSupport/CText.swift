/// The text of a fixed-size C `char` array (imported into Swift as a tuple) up to its first NUL: the messages,
/// names and header values the C targets hand back in their status structs.
package func cText<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

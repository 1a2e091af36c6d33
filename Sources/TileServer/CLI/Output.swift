import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// One line on standard error, with a single `write(2)` so lines from threads never interleave.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in
        _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
    }
}

/// Runs a command's work; any failure but an exit code becomes one line `PREFIX: error` on standard error and
/// exit status 1, the same for every command.
func reportingFailure(_ prefix: String = "tileserver", _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError("\(prefix): \(error)")
        throw ExitCode(1)
    }
}

/// `text` broken into lines of at most `width` columns, each indented by `indent` spaces: help text that reads as
/// a block under its option in an 80-column terminal.
func wrapped(_ text: String, indent: Int, width: Int = 78) -> String {
    let pad = String(repeating: " ", count: indent)
    var lines: [String] = [], line = ""
    for word in text.split(separator: " ") {
        if !line.isEmpty, pad.count + line.count + 1 + word.count > width {
            lines.append(pad + line)
            line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(pad + line) }
    return lines.joined(separator: "\n")
}

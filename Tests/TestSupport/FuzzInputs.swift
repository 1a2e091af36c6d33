import Foundation

/// The seeds and findings of one fuzz target (`Fuzz/Corpus/TARGET`, `Fuzz/Regressions/TARGET`), for tests that
/// replay them through the same parsers the fuzzer drives.
public enum FuzzInputs {
    public static func contents(of target: String) throws -> [(name: String, data: [UInt8])] {
        let root = TestPaths.repoRoot.appendingPathComponent("Fuzz")
        return try ["Corpus", "Regressions"].flatMap { folder -> [(name: String, data: [UInt8])] in
            let dir = root.appendingPathComponent(folder).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return try names.filter { !$0.hasPrefix(".") }.sorted().map { name in
                (folder + "/" + name, Array(try Data(contentsOf: dir.appendingPathComponent(name))))
            }
        }
    }
}

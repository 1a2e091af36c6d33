import Foundation
import PackagePlugin

/// Compiles the viewer (`public/` at the package root) into the target that uses this plugin, as one generated
/// Swift file, so the binary serves its viewer from any directory with no files beside it. Every file of
/// `public/` is an input, so editing one rebuilds the generated source.
@main
struct EmbedViewer: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "public")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedViewer.swift")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                if !url.lastPathComponent.hasPrefix(".") { inputs.append(url) }
            }
        }
        return [.buildCommand(
            displayName: "Embedding the viewer (\(inputs.count) files of public/)",
            executable: try context.tool(named: "EmbedViewerTool").url,
            arguments: [folder.path, output.path],
            inputFiles: inputs,
            outputFiles: [output]
        )]
    }
}

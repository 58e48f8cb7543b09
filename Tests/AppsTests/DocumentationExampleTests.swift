import Foundation
import Testing

/// The Swift examples of README.md, CONTRIBUTING.md, the documentation catalogs and the doc
/// comments are code that is built: each is found, line for line, in a Swift file under `Apps/`
/// or `Tests/`, so an example that no longer compiles fails the build, and one edited in only
/// one place fails here.
@Suite("The documentation's Swift examples are built")
struct DocumentationExampleTests {
    /// A fenced Swift example of a Markdown file.
    struct Example: CustomStringConvertible {
        let file: String
        let line: Int
        let lines: [String]

        /// Its `import` lines; the rest may sit inside a type or function of the built file.
        var imports: Set<String> { Set(lines.filter { $0.hasPrefix("import ") }) }
        var body: [String] {
            Array(lines.filter { !$0.hasPrefix("import ") }.drop { $0.isEmpty })
        }
        /// A fragment of a package manifest (`Package.swift`), which no target builds.
        var isManifestFragment: Bool { lines.first?.hasPrefix("// Package.swift") == true }
        var description: String { "\(file):\(line)" }
    }

    static let root = ServeExampleTests.root

    /// Every ```swift block of the Markdown files a reader sees and of the doc comments of
    /// `Modules/` (the symbol pages), lines trimmed of indentation.
    static func examples() throws -> [Example] {
        try markdownExamples() + docCommentExamples()
    }

    /// The ```swift blocks of `/// ` doc comments in the library modules' sources.
    static func docCommentExamples() throws -> [Example] {
        let base = root.appendingPathComponent("Modules")
        guard let files = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return try files.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().flatMap { file in
            let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
            return fencedSwift(in: text, file: "Modules/\(file)", commentPrefix: "///")
        }
    }

    /// The ```swift blocks of README.md, CONTRIBUTING.md, the catalogs' articles and their symbols'
    /// extension files (`Extensions/`).
    static func markdownExamples() throws -> [Example] {
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Modules").path)
            .sorted()
            .flatMap { module -> [String] in
                let catalog = "Modules/\(module)/\(module).docc"
                return [catalog, "\(catalog)/Extensions"].flatMap { folder in
                    let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
                    return files.filter { $0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
                }
            }
        return try (["README.md", "CONTRIBUTING.md"] + catalogs).flatMap { file in
            fencedSwift(in: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file)
        }
    }

    /// The ```swift blocks of `text`; with `commentPrefix`, only those in lines that start with it
    /// (a doc comment's), read without it.
    static func fencedSwift(in text: String, file: String, commentPrefix: String? = nil) -> [Example] {
        var examples: [Example] = []
        var open: (line: Int, lines: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            var trimmed = line.trimmingCharacters(in: .whitespaces)
            if let commentPrefix {
                guard trimmed.hasPrefix(commentPrefix) else {
                    open = nil
                    continue
                }
                trimmed = String(trimmed.dropFirst(commentPrefix.count)).trimmingCharacters(in: .whitespaces)
            }
            if let current = open {
                if trimmed == "```" {
                    examples.append(Example(file: file, line: current.line, lines: current.lines))
                    open = nil
                } else {
                    open?.lines.append(trimmed)
                }
            } else if trimmed == "```swift" {
                open = (index + 1, [])
            }
        }
        return examples
    }

    /// Each Swift file under `Apps/` and `Tests/`, as lines trimmed of indentation.
    static func builtSources() throws -> [String: [String]] {
        var sources: [String: [String]] = [:]
        for folder in ["Apps", "Tests"] {
            let base = root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                sources["\(folder)/\(file)"] = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        return sources
    }

    /// The built file that holds `example`: its body as consecutive lines, and its imports.
    static func home(of example: Example, in sources: [String: [String]]) -> String? {
        let body = example.body
        return sources.keys.sorted().first { path in
            guard let lines = sources[path], example.imports.isSubset(of: lines), lines.count >= body.count else { return false }
            return (0...(lines.count - body.count)).contains { start in lines[start..<(start + body.count)].elementsEqual(body) }
        }
    }

    @Test func everySwiftExampleIsInABuiltFile() throws {
        let examples = try Self.examples()
        let sources = try Self.builtSources()
        #expect(examples.count >= 40, "found the examples of the documents and the doc comments")
        for example in examples where !example.isManifestFragment {
            #expect(
                Self.home(of: example, in: sources) != nil,
                "\(example): this Swift example is in no file under Apps/ or Tests/ (indentation aside); copy it into the test that builds it, or mend that copy: \(example.body.first ?? "")"
            )
        }
    }

    @Test func anExampleChangedInOnePlaceIsFound() throws {
        let sources = try Self.builtSources()
        let serveLoop = "let input = InputLines() // read on a thread of its own, never blocking a task"
        let serve = try #require(try Self.examples().first { $0.body.contains(serveLoop) })
        #expect(Self.home(of: serve, in: sources) == "Apps/Serve/main.swift")
        var edited = serve.lines
        edited[edited.count / 2] += " // edited"
        #expect(Self.home(of: Example(file: serve.file, line: serve.line, lines: edited), in: sources) == nil)
        let moreImports = Example(file: serve.file, line: serve.line, lines: ["import Persistence"] + serve.lines)
        #expect(Self.home(of: moreImports, in: sources) == nil, "the built file must import what the example imports")
    }
}

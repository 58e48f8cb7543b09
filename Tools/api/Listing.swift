// Prints the public API of library modules, one declaration per line, from the symbol graphs of
// `swift package dump-symbol-graph --minimum-access-level public`:
//   swift Tools/api/Listing.swift <symbol-graph-folder> <Module>…
// Each module is a section; each symbol a line `Path.to.symbol: declaration`, followed by its
// `@available` attributes when it has any (a deprecation is an API change: code built with
// warnings as errors stops building), and each conformance a line `Path: conforms to Protocol`,
// sorted, so a change reads as a diff.
import Foundation

struct Graph: Decodable {
    struct Symbol: Decodable {
        struct Fragment: Decodable { let spelling: String }
        struct Identifier: Decodable { let precise: String }
        struct Kind: Decodable { let identifier: String }
        let identifier: Identifier
        let kind: Kind
        let pathComponents: [String]
        let declarationFragments: [Fragment]?
        let availability: [Availability]?
    }
    struct Availability: Decodable {
        struct Version: Decodable {
            let major: Int
            let minor: Int?
            let patch: Int?
            var text: String { [major, minor, patch].compactMap { $0 }.map(String.init).joined(separator: ".") }
        }
        let domain: String?
        let introduced: Version?
        let deprecated: Version?
        let obsoleted: Version?
        let message: String?
        let renamed: String?
        let isUnconditionallyDeprecated: Bool?
        let isUnconditionallyUnavailable: Bool?

        /// As written in Swift: `@available(*, deprecated, renamed: "x")`.
        var attribute: String {
            var parts = [domain ?? "*"]
            if isUnconditionallyUnavailable == true { parts.append("unavailable") }
            if let introduced { parts.append("introduced: \(introduced.text)") }
            if isUnconditionallyDeprecated == true { parts.append("deprecated") }
            if let deprecated { parts.append("deprecated: \(deprecated.text)") }
            if let obsoleted { parts.append("obsoleted: \(obsoleted.text)") }
            if let renamed { parts.append("renamed: \"\(renamed)\"") }
            if let message { parts.append("message: \"\(message)\"") }
            return "@available(\(parts.joined(separator: ", ")))"
        }
    }
    struct Relationship: Decodable {
        let kind: String
        let source: String
        let target: String
        let targetFallback: String?
    }
    let symbols: [Symbol]
    let relationships: [Relationship]
}

let arguments = CommandLine.arguments.dropFirst()
guard let folder = arguments.first, arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: swift Tools/api/Listing.swift <symbol-graph-folder> <Module>…\n".utf8))
    exit(2)
}
let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []

/// `Swift.Sendable` → `Sendable`; names of this package's modules kept as the graphs give them.
func shortName(_ fallback: String) -> String {
    fallback.split(separator: ".").last.map(String.init) ?? fallback
}

var output = ""
for module in arguments.dropFirst() {
    let graphs = files.filter { $0 == "\(module).symbols.json" || $0.hasPrefix("\(module)@") && $0.hasSuffix(".symbols.json") }.sorted()
    guard !graphs.isEmpty else {
        FileHandle.standardError.write(Data("no symbol graph for \(module) in \(folder)\n".utf8))
        exit(1)
    }
    var lines = Set<String>()
    for file in graphs {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(file))
        let graph = try JSONDecoder().decode(Graph.self, from: data)
        var paths: [String: String] = [:]
        for symbol in graph.symbols {
            let path = symbol.pathComponents.joined(separator: ".")
            paths[symbol.identifier.precise] = path
            guard let fragments = symbol.declarationFragments else { continue }
            let declaration = fragments.map(\.spelling).joined()
                .replacingOccurrences(of: "\n", with: " ")
                .replacingOccurrences(of: #" {2,}"#, with: " ", options: .regularExpression)
            let attributes = (symbol.availability ?? []).map { $0.attribute + " " }.sorted().joined()
            lines.insert("\(path): \(attributes)\(declaration)")
        }
        // SendableMetatype comes with Sendable: listing it would only double every Sendable line.
        for relationship in graph.relationships where relationship.kind == "conformsTo" && relationship.targetFallback != "Swift.SendableMetatype" {
            guard let path = paths[relationship.source] else { continue }
            let target = paths[relationship.target] ?? relationship.targetFallback.map(shortName) ?? relationship.target
            lines.insert("\(path): conforms to \(target)")
        }
    }
    output += "## \(module)\n\n" + lines.sorted().joined(separator: "\n") + "\n\n"
}
FileHandle.standardOutput.write(Data(output.utf8))

import AppHost
import Foundation

/// A shell that `--generate-completion-script` writes a script for.
public enum CompletionShell: String, CaseIterable, Sendable {
    case bash, zsh, fish
}

extension ShellCommandLine {
    /// A script for `shell` that completes this tool's options, their values and its file arguments.
    public func completionScript(for shell: CompletionShell) -> String {
        switch shell {
        case .bash: bashScript
        case .zsh: zshScript
        case .fish: fishScript
        }
    }

    /// The options every tool answers besides its table, with what they take.
    private var builtIns: [(name: String, placeholder: String?, summary: String)] {
        [
            ("--help", nil, "print the usage and stop"), ("--version", nil, "print the version and stop"),
            (
                "--generate-completion-script", CompletionShell.allCases.map(\.rawValue).joined(separator: "|"),
                "print a completion script for the shell"
            ),
        ]
    }

    private var allOptions: [(name: String, placeholder: String?, summary: String)] {
        options.map { ($0.name, $0.placeholder, $0.summary) } + builtIns
    }

    /// What a value is completed with.
    private enum ValueKind {
        case choices([String]), files, free
    }

    private static func kind(of placeholder: String) -> ValueKind {
        if placeholder.contains("|") { return .choices(placeholder.split(separator: "|").map(String.init)) }
        return ["PATH", "FILE"].contains(placeholder) ? .files : .free
    }

    private var functionName: String { "_" + tool.map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined() }

    private var bashScript: String {
        var cases: [String] = []
        for option in allOptions {
            guard let placeholder = option.placeholder else { continue }
            let reply =
                switch Self.kind(of: placeholder) {
                case .choices(let choices): "COMPREPLY=($(compgen -W \"\(choices.joined(separator: " "))\" -- \"$cur\"))"
                case .files: "COMPREPLY=($(compgen -f -- \"$cur\"))"
                case .free: "COMPREPLY=()"
                }
            cases.append("        \(option.name)) \(reply); return ;;")
        }
        let names = allOptions.map(\.name).joined(separator: " ")
        let arguments = takesFiles ? "COMPREPLY=($(compgen -f -- \"$cur\"))" : "COMPREPLY=()"
        return """
            # bash completion for \(tool) \(AppCoreVersion.current)
            \(functionName)() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
                case "$prev" in
            \(cases.joined(separator: "\n"))
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "\(names)" -- "$cur"))
                    return
                fi
                \(arguments)
            }
            complete -o filenames -F \(functionName) \(tool)

            """
    }

    private var zshScript: String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "'\\''")
                .replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
                .replacingOccurrences(of: ":", with: "\\:")
        }
        var specs: [String] = []
        for option in allOptions {
            var spec = "'\(option.name)[\(escaped(option.summary))]"
            if let placeholder = option.placeholder {
                let action =
                    switch Self.kind(of: placeholder) {
                    case .choices(let choices): "(\(choices.joined(separator: " ")))"
                    case .files: "_files"
                    case .free: " "
                    }
                spec += ":\(escaped(placeholder)):\(action)"
            }
            specs.append(spec + "'")
        }
        if takesFiles { specs.append("'*:file:_files'") }
        return """
            #compdef \(tool)
            # zsh completion for \(tool) \(AppCoreVersion.current)
            \(functionName)() {
                _arguments -s \\
            \(specs.map { "        " + $0 }.joined(separator: " \\\n"))
            }
            \(functionName) "$@"

            """
    }

    private var fishScript: String {
        func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        var lines = ["# fish completion for \(tool) \(AppCoreVersion.current)"]
        lines.append("complete -c \(tool) " + (takesFiles ? "-F" : "-f"))
        for option in allOptions {
            var line = "complete -c \(tool) -l \(option.name.dropFirst(2)) -d \(quoted(option.summary))"
            if let placeholder = option.placeholder {
                switch Self.kind(of: placeholder) {
                case .choices(let choices): line += " -x -a \(quoted(choices.joined(separator: " ")))"
                case .files: line += " -r -F"
                case .free: line += " -x"
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

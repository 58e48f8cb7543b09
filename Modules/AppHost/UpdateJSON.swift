import Foundation
import ViewModels

extension IntentOutcome.Update {
    /// The update as one line of JSON.
    public func jsonLine() throws -> String {
        var json = JSONText()
        json.bytes.append(contentsOf: #"{"screens":"#.utf8)
        try json.write(screens)
        json.bytes.append(contentsOf: #","status":"#.utf8)
        json.write(status)
        json.bytes.append(UInt8(ascii: "}"))
        return String(decoding: json.bytes, as: UTF8.self)
    }
}

/// JSON written into bytes, keys sorted by hand: what `JSONEncoder` would write.
private struct JSONText {
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(1_024)
    }

    mutating func write(_ update: ScreensUpdate) throws {
        bytes.append(contentsOf: #"{"changed":"#.utf8)
        array(update.changed) { $0.string($1.rawValue) }
        try encoded("counter", update.counter)
        try encoded("login", update.login)
        if let notes = update.notes {
            key("notes")
            write(notes)
        }
        try encoded("profile", update.profile)
        try encoded("session", update.session)
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ notes: NotesUpdate) {
        bytes.append(contentsOf: #"{"count":"#.utf8)
        number(notes.count)
        if let message = notes.emptyMessage {
            key("emptyMessage")
            string(message)
        }
        if let message = notes.errorMessage {
            key("errorMessage")
            string(message)
        }
        key("isEmpty")
        bool(notes.isEmpty)
        key("isLoading")
        bool(notes.isLoading)
        key("isSearching")
        bool(notes.isSearching)
        key("rowLimit")
        number(notes.rowLimit)
        key("rows")
        switch notes.rows {
        case .all(let rows):
            bytes.append(contentsOf: #"{"all":{"rows":"#.utf8)
            array(rows) { $0.write($1) }
            bytes.append(contentsOf: "}}".utf8)
        case .changes(let upserted, let removed):
            bytes.append(contentsOf: #"{"changes":{"removed":"#.utf8)
            array(removed) { $0.string($1.description) }
            bytes.append(contentsOf: #","upserted":"#.utf8)
            array(upserted) { json, positioned in
                json.bytes.append(contentsOf: #"{"at":"#.utf8)
                json.number(positioned.at)
                json.key("row")
                json.write(positioned.row)
                json.bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(contentsOf: "}}".utf8)
        }
        key("searchQuery")
        string(notes.searchQuery)
        if let id = notes.selectedID {
            key("selectedID")
            string(id.description)
        }
        if let text = notes.selectedText {
            key("selectedText")
            string(text)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ row: NotesViewModel.Row) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        string(row.id.description)
        key("isPending")
        bool(row.isPending)
        key("isSelected")
        bool(row.isSelected)
        key("isUnsaved")
        bool(row.isUnsaved)
        key("preview")
        string(row.preview)
        key("title")
        string(row.title)
        if let reason = row.unsavedReason {
            key("unsavedReason")
            string(reason)
        }
        key("updatedAt")
        string(row.updatedAt)
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ status: IntentOutcome.Status) {
        switch status {
        case .completed:
            bytes.append(contentsOf: #"{"completed":{}}"#.utf8)
        case .rejected(let reason):
            bytes.append(contentsOf: #"{"rejected":{"reason":"#.utf8)
            string(reason)
            bytes.append(contentsOf: "}}".utf8)
        case .failed(let reason):
            bytes.append(contentsOf: #"{"failed":{"reason":"#.utf8)
            string(reason)
            bytes.append(contentsOf: "}}".utf8)
        case .timedOut(let running):
            bytes.append(contentsOf: #"{"timedOut":{"running":"#.utf8)
            array(running) { $0.string($1) }
            bytes.append(contentsOf: "}}".utf8)
        }
    }

    private mutating func array<Element>(_ elements: [Element], _ write: (inout JSONText, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `,"name":` — every key here follows another.
    private mutating func key(_ name: StaticString) {
        bytes.append(contentsOf: #",""#.utf8)
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: #"":"#.utf8)
    }

    /// `value` through `JSONEncoder`, under `name`, when there is one.
    private mutating func encoded(_ name: StaticString, _ value: (some Encodable)?) throws {
        guard let value else { return }
        key(name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        bytes.append(contentsOf: try encoder.encode(value))
    }

    private mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    private mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `text` quoted and escaped as `JSONEncoder` escapes it.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

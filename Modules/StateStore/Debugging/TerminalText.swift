/// Text as a terminal may show it.
public enum TerminalText {
    /// `text` with every control a terminal would act on written out visibly.
    public static func visible(_ text: String) -> String {
        // Every such control starts with a byte below a space, DEL, or the lead byte of U+0080…
        // (0xC2), U+061C (0xD8) or U+2000… (0xE2): most text has none of them and is read once.
        let mayHoldOne = text.utf8.contains { byte in
            (byte < 0x20 && byte != 0x0A && byte != 0x09) || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
        }
        guard mayHoldOne, text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = ""
        shown.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                shown.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\u{1B}": shown += "\\e"
            case "\r": shown += "\\r"
            default: shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return shown
    }

    /// Whether a terminal would act on `scalar` rather than show it.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false // line feed and tab lay text out
        case 0x00...0x1F, 0x7F...0x9F: true // C0, DEL, C1
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true // bidi marks, embeddings, overrides, isolates
        default: false
        }
    }
}

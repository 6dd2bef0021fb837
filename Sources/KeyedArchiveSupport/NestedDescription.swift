/// The one iterative walk behind the one-line descriptions of nested values
/// (``PropertyList`` and ``ArchivedObjectGraph/Value``): arrays in `[ ]` with `, `,
/// dictionaries in `{ }`, each renderer choosing how keys, entry separators and scalars
/// are written.
///
/// An explicit work stack, not recursion: any nesting depth renders on any thread.
package struct NestedDescription {
    /// What a value is to the walk.
    package enum Node<Value> {
        case scalar
        case array([Value])
        case dictionary([(key: String, value: Value)])
    }

    /// Between two dictionary entries: `", "` or `"; "`.
    package let entrySeparator: String
    /// What precedes an entry's value: the key, quoted or not, and `": "` or `" = "`.
    package let keyText: (String) -> String

    package init(entrySeparator: String, keyText: @escaping (String) -> String) {
        self.entrySeparator = entrySeparator
        self.keyText = keyText
    }

    /// `root` rendered on one line.
    ///
    /// - Parameters:
    ///   - root: The value.
    ///   - node: Whether a value is a scalar, an array or a dictionary (with its entries in
    ///     the order shown).
    ///   - appendScalar: Appends a scalar's text.
    package func render<Value>(
        _ root: Value, node: (Value) -> Node<Value>, appendScalar: (Value, inout String) -> Void
    ) -> String {
        var text = ""
        var work: [NestedDescriptionWork<Value>] = [.value(root)]
        while let item = work.popLast() {
            switch item {
            case .text(let literal):
                text += literal
            case .value(let value):
                switch node(value) {
                case .scalar:
                    appendScalar(value, &text)
                case .array(let elements):
                    text += "["
                    work.append(.text("]"))
                    for (index, element) in elements.enumerated().reversed() {
                        work.append(.value(element))
                        if index > 0 { work.append(.text(", ")) }
                    }
                case .dictionary(let entries):
                    text += "{"
                    work.append(.text("}"))
                    for (index, entry) in entries.enumerated().reversed() {
                        work.append(.value(entry.value))
                        work.append(.text(keyText(entry.key)))
                        if index > 0 { work.append(.text(entrySeparator)) }
                    }
                }
            }
        }
        return text
    }
}

/// An item of ``NestedDescription``'s work stack: a value to render or text to append.
package enum NestedDescriptionWork<Value> {
    case value(Value)
    case text(String)
}

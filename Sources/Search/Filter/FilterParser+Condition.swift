extension FilterParser.Cursor {
    /// What an operator does with a field's values, which decides the field types it accepts.
    enum Operation {
        /// `=`, `!=`, `IN`: any type but geo.
        case equality
        /// `>`, `>=`, `<`, `<=`, `TO`: numbers only.
        case ordering
    }

    /// `field OP value`, `field [NOT] IN [...]`, `field [NOT] EXISTS`, `field v1 TO v2`.
    mutating func condition() throws(FilterError) -> FilterExpression {
        let fieldToken = current
        guard let name = fieldToken.value else {
            throw expected("a condition: a field name, '(', NOT, _geoRadius or _geoBoundingBox")
        }
        let field = try declaredField(name, at: fieldToken.position)
        advance()
        let operatorToken = current
        switch operatorToken.kind {
        case .comparison(let comparison):
            advance()
            let operation: Operation = comparison == .equal || comparison == .notEqual ? .equality : .ordering
            try check(operation, operatorToken, on: field)
            return .compare(field: name, comparison, try value(for: field))
        case _ where operatorToken.isKeyword(.in):
            return .oneOf(field: name, try list(for: field))
        case _ where operatorToken.isKeyword(.exists):
            advance()
            return .exists(field: name)
        case _ where operatorToken.isKeyword(.not):
            advance()
            if current.isKeyword(.in) { return .not(.oneOf(field: name, try list(for: field))) }
            guard current.isKeyword(.exists) else { throw expected("IN or EXISTS") }
            advance()
            return .not(.exists(field: name))
        case _ where operatorToken.value != nil:
            let lower = try value(for: field, checking: false)
            let to = current
            guard to.isKeyword(.to) else { throw expected("TO", hint: "a range is written 'price 10 TO 20'") }
            advance()
            try check(.ordering, to, on: field)
            try checkValue(operatorToken, for: field)  // the lower end
            return .between(field: name, lower, try value(for: field))
        default:
            throw expected("an operator: =, !=, >, >=, <, <=, IN, NOT IN, TO, EXISTS or NOT EXISTS")
        }
    }

    func declaredField(_ name: String, at position: Int) throws(FilterError) -> FieldSchema {
        if let field = schema.field(named: name) { return field }
        throw FilterError(position: position, "the field '\(FilterToken.abbreviated(name))' is not declared in the collection's schema")
    }

    /// Whether `operation`, written by `token`, applies to `field`.
    func check(_ operation: Operation, _ token: FilterToken, on field: FieldSchema) throws(FilterError) {
        let spelled = token.keyword?.rawValue ?? token.quotedForMessage
        switch (field.type, operation) {
        case (.geo, _):
            throw FilterError(
                position: token.position,
                "'\(field.name)' is a geo field: filter it with _geoRadius(lat, lng, meters) or _geoBoundingBox([lat, lng], [lat, lng])")
        case (.string, .ordering), (.stringArray, .ordering), (.boolean, .ordering):
            throw FilterError(position: token.position, "\(spelled) compares numbers, and '\(field.name)' is a \(field.type.rawValue) field")
        default:
            return
        }
    }

    /// `[v1, v2, ...]` after `IN` (the current token), each value of `field`'s type.
    mutating func list(for field: FieldSchema) throws(FilterError) -> [FilterValue] {
        try check(.equality, advance(), on: field)
        guard current.kind == .leftBracket else { throw expected("'['", hint: "a list is written 'IN [a, b]'") }
        advance()
        var values: [FilterValue] = []
        while current.kind != .rightBracket {
            values.append(try value(for: field, what: "a value or ']'"))
            switch current.kind {
            case .comma: advance()
            case .rightBracket: break
            default: throw expected("',' or ']'")
            }
        }
        advance()
        return values
    }

    /// The value at the current token, converted to `field`'s type (unless `checking` is false:
    /// the lower end of a range is checked once the range is known to be one).
    mutating func value(for field: FieldSchema, what: String = "a value", checking: Bool = true) throws(FilterError) -> FilterValue {
        let token = current
        if case .word(let word) = token.kind, word.hasPrefix("_geo"), tokens[index + 1].kind == .leftParenthesis {
            throw FilterError(position: token.position, "\(word)(...) is a condition of its own, not a value")
        }
        guard let text = token.value else { throw expected(what) }
        advance()
        if checking { try checkValue(token, for: field) }
        return Self.convert(text, for: field)
    }

    /// Throws when `token`'s text is not a value of `field`'s type.
    func checkValue(_ token: FilterToken, for field: FieldSchema) throws(FilterError) {
        guard let text = token.value else { return }
        let shown = FilterToken.abbreviated(text)
        switch field.type {
        case .number:
            switch DecimalNumber.parse(text) {
            case .success: return
            case .failure(.notFinite):
                throw FilterError(position: token.position, "'\(shown)' is not a finite number")
            case .failure(.syntax):
                throw FilterError(position: token.position, "'\(shown)' is not a number, and '\(field.name)' is a number field")
            }
        case .boolean:
            guard Self.boolean(text) != nil else {
                throw FilterError(position: token.position, "'\(shown)' is not a boolean (true or false), and '\(field.name)' is a boolean field")
            }
        case .string, .stringArray, .geo:
            return
        }
    }

    /// `text` as a value of `field`'s type; `checkValue` has accepted it.
    static func convert(_ text: String, for field: FieldSchema) -> FilterValue {
        switch field.type {
        case .number: return .number(DecimalNumber.finite(text) ?? 0)
        case .boolean: return .boolean(boolean(text) ?? false)
        case .string, .stringArray, .geo: return .string(FilterValue.fold(text))
        }
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }
}

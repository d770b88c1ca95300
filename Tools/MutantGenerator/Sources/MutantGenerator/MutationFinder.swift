import SwiftSyntax

/// Walks one parsed file and collects every mutant of the fixed operator set. Skips what no
/// test can reach through this file's behaviour: string literals (and their interpolations),
/// attributes, and `#if` clauses for other platforms.
final class MutationFinder: SyntaxVisitor {
    private let file: String
    private let folder: String
    private let converter: SourceLocationConverter
    private let infixRanges: [Int: (offset: Int, length: Int)]
    private var found: [Mutant] = []

    static func mutants(in tree: SourceFileSyntax, file: String, folder: String) -> [Mutant] {
        let finder = MutationFinder(tree: tree, file: file, folder: folder)
        finder.walk(tree)
        return finder.found.sorted { ($0.offset, $0.operator) < ($1.offset, $1.operator) }
    }

    private init(tree: SourceFileSyntax, file: String, folder: String) {
        self.file = file
        self.folder = folder
        converter = SourceLocationConverter(fileName: file, tree: tree)
        infixRanges = InfixExpressions.ranges(in: tree)
        super.init(viewMode: .sourceAccurate)
    }

    // MARK: Skipped

    override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: AttributeSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: IfConfigClauseSyntax) -> SyntaxVisitorContinueKind {
        let condition = node.condition?.trimmedDescription ?? ""
        let otherPlatform = ["Darwin", "macOS", "iOS", "Windows", "watchOS", "tvOS"].contains {
            condition.contains($0)
        }
        return otherPlatform ? .skipChildren : .visitChildren
    }

    // MARK: Operators

    override func visit(_ node: BinaryOperatorExprSyntax) -> SyntaxVisitorContinueKind {
        let token = node.operator
        let wrap = infixRanges[token.positionAfterSkippingLeadingTrivia.utf8Offset]
        for (kind, replacement) in OperatorSwaps.replacements(of: token.text) {
            add(kind, token, replacement, wrap: wrap)
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        for argument in node.arguments {
            for name in ReplacedArguments.candidates(for: argument, in: node) {
                add(.argumentReplaced, argument.expression, name)
            }
        }
        return .visitChildren
    }

    override func visit(_ node: ConditionElementSyntax) -> SyntaxVisitorContinueKind {
        guard case .expression(let condition) = node.condition else { return .visitChildren }
        let text = condition.trimmedDescription
        // A literal condition (`while true`) holds no logic to mutate: the compiler relies on it
        // to know the loop never ends, so replacing it only makes a function without a return.
        if condition.is(BooleanLiteralExprSyntax.self) { return .visitChildren }
        if let prefix = condition.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "!" {
            add(.conditionNegated, condition, prefix.expression.trimmedDescription)
        } else {
            add(.conditionNegated, condition, "!(\(text))")
        }
        add(.conditionTrue, condition, "true")
        add(.conditionFalse, condition, "false")
        return .visitChildren
    }

    override func visit(_ node: CodeBlockItemSyntax) -> SyntaxVisitorContinueKind {
        if case .expr(let expression) = node.item, CheckCalls.isCheck(expression) {
            add(.checkRemoved, node, "")
        }
        return .visitChildren
    }

    override func visit(_ node: IntegerLiteralExprSyntax) -> SyntaxVisitorContinueKind {
        guard let value = IntegerLiterals.value(of: node.literal.text) else { return .skipChildren }
        if value < Int.max { add(.integerPlusOne, node, IntegerLiterals.text(value + 1, like: node.literal.text)) }
        if value > 0 { add(.integerMinusOne, node, IntegerLiterals.text(value - 1, like: node.literal.text)) }
        return .skipChildren
    }

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        if let expression = node.expression, let empty = ReturnedCollections.emptyValue(returnedFrom: Syntax(node)) {
            addEmptied(expression, empty)
        }
        return .visitChildren
    }

    override func visit(_ node: CodeBlockItemListSyntax) -> SyntaxVisitorContinueKind {
        // A body of one expression returns it without `return`.
        if node.count == 1, ReturnedCollections.isWholeBody(node), let item = node.first,
            case .expr(let expression) = item.item,
            let empty = ReturnedCollections.emptyValue(returnedFrom: Syntax(node))
        {
            addEmptied(expression, empty)
        }
        return .visitChildren
    }

    // MARK: Recording

    private func addEmptied(_ expression: ExprSyntax, _ empty: String) {
        let text = expression.trimmedDescription
        if text != empty && text != "[]" { add(.returnEmptied, expression, empty) }
    }

    private func add(
        _ kind: MutationOperator, _ node: some SyntaxProtocol, _ replacement: String,
        wrap: (offset: Int, length: Int)? = nil
    ) {
        let start = node.positionAfterSkippingLeadingTrivia
        let end = node.endPositionBeforeTrailingTrivia
        let location = converter.location(for: start)
        found.append(
            Mutant(
                operator: kind.rawValue, folder: folder, file: file, context: Declarations.path(of: Syntax(node)),
                line: location.line, column: location.column, offset: start.utf8Offset,
                length: end.utf8Offset - start.utf8Offset, original: node.trimmedDescription,
                replacement: replacement, wrapOffset: wrap?.offset, wrapLength: wrap?.length))
    }
}

import SwiftOperators
import SwiftSyntax

/// The byte range of the infix expression around each infix operator of a file, from the file
/// folded with the standard operators' precedence (the parser leaves `a < b && c` a flat
/// sequence). Folding keeps the text, so the ranges are those of the file.
enum InfixExpressions {
    /// Operator token offset -> (offset, length) of its whole expression.
    static func ranges(in tree: SourceFileSyntax) -> [Int: (offset: Int, length: Int)] {
        let folded = OperatorTable.standardOperators.foldAll(tree) { _ in }
        var ranges: [Int: (offset: Int, length: Int)] = [:]
        for node in folded.tokens(viewMode: .sourceAccurate) {
            guard let infix = node.parent?.parent?.as(InfixOperatorExprSyntax.self),
                infix.operator.as(BinaryOperatorExprSyntax.self)?.operator == node
            else { continue }
            let start = infix.positionAfterSkippingLeadingTrivia.utf8Offset
            ranges[node.positionAfterSkippingLeadingTrivia.utf8Offset] = (
                start, infix.endPositionBeforeTrailingTrivia.utf8Offset - start
            )
        }
        return ranges
    }
}

/// What each comparison and logical operator becomes.
enum OperatorSwaps {
    /// Every (operator, replacement) for an infix operator's text; none for other operators.
    static func replacements(of text: String) -> [(MutationOperator, String)] {
        switch text {
        case "<": return [(.comparisonBoundary, "<="), (.comparisonNegated, ">=")]
        case "<=": return [(.comparisonBoundary, "<"), (.comparisonNegated, ">")]
        case ">": return [(.comparisonBoundary, ">="), (.comparisonNegated, "<=")]
        case ">=": return [(.comparisonBoundary, ">"), (.comparisonNegated, "<")]
        case "==": return [(.comparisonNegated, "!=")]
        case "!=": return [(.comparisonNegated, "==")]
        case "===": return [(.comparisonNegated, "!==")]
        case "!==": return [(.comparisonNegated, "===")]
        case "&&": return [(.logicalSwapped, "||")]
        case "||": return [(.logicalSwapped, "&&")]
        default: return []
        }
    }
}

import SwiftSyntax

/// Statements that only call a check: a call whose result is not used, to a function whose name
/// says it checks (throws or traps when something is wrong). The name is the only sign available
/// without type checking; a statement-level call to any other function is left alone.
enum CheckCalls {
    static let prefixes = [
        "check", "require", "verify", "validate", "ensure", "expect", "assert", "precondition", "authorize",
        "authorise", "confirm", "reject", "enforce",
    ]

    /// Whether a statement is `[try] [await] check…(…)`.
    static func isCheck(_ expression: ExprSyntax) -> Bool {
        var inner = expression
        while true {
            if let tried = inner.as(TryExprSyntax.self) {
                inner = tried.expression
            } else if let awaited = inner.as(AwaitExprSyntax.self) {
                inner = awaited.expression
            } else {
                break
            }
        }
        guard let call = inner.as(FunctionCallExprSyntax.self), let name = calledName(call.calledExpression) else {
            return false
        }
        return prefixes.contains { name.hasPrefix($0) }
    }

    private static func calledName(_ callee: ExprSyntax) -> String? {
        if let reference = callee.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = callee.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        return nil
    }
}

"""A safe arithmetic evaluator for the ``calculator`` tool: numbers and operators, nothing else.

The expression is parsed with :mod:`ast` and walked node by node; only
number literals, ``+ - * / // % **``, unary signs and parentheses are
allowed. Names, calls, attributes, subscripts, strings, comprehensions,
lambdas... are refused (so ``__import__('os')`` never runs). Sizes are
bounded: the expression length, the nesting depth, exponents, and every
intermediate result, so ``9**9**9`` is refused instead of eating memory.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from cognivault.errors import CogniVaultError

MAX_EXPRESSION_CHARS = 200
MAX_DEPTH = 40
MAX_EXPONENT = 1000
MAX_INT_BITS = 4096
MAX_ABS_FLOAT = 1e300


class CalculatorError(CogniVaultError, ValueError):
    """The expression is not allowed or cannot be computed; the message says why."""

    code = "bad_expression"


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _check_size(value: int | float) -> int | float:
    if isinstance(value, bool):
        raise CalculatorError("only numbers are allowed")
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise CalculatorError("the result is too large")
    elif isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or abs(value) > MAX_ABS_FLOAT:
            raise CalculatorError("the result is too large or not a number")
    else:
        raise CalculatorError("only real numbers are allowed")
    return value


def _power(base: int | float, exponent: int | float) -> int | float:
    if abs(exponent) > MAX_EXPONENT:
        raise CalculatorError(f"exponents are limited to {MAX_EXPONENT}")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        # Estimate the size before computing: bits(base**e) ~ e * bits(base).
        if base not in (0, 1, -1) and exponent * max(1, abs(base).bit_length() - 1) > MAX_INT_BITS:
            raise CalculatorError("the result is too large")
    try:
        result = base ** exponent
    except (OverflowError, ZeroDivisionError) as exc:
        raise CalculatorError(f"cannot compute: {exc}") from exc
    if isinstance(result, complex):
        raise CalculatorError("the result is not a real number")
    return result


def _evaluate(node: ast.AST, depth: int) -> int | float:
    if depth > MAX_DEPTH:
        raise CalculatorError("the expression is nested too deeply")
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, depth + 1)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalculatorError("only numbers are allowed")
        return _check_size(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _check_size(_UNARY[type(node.op)](_evaluate(node.operand, depth + 1)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _evaluate(node.left, depth + 1)
        right = _evaluate(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            return _check_size(_power(left, right))
        if isinstance(node.op, ast.Mult) and isinstance(left, int) and isinstance(right, int) and \
                left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
            raise CalculatorError("the result is too large")
        try:
            return _check_size(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError as exc:
            raise CalculatorError("division by zero") from exc
        except OverflowError as exc:
            raise CalculatorError("the result is too large") from exc
    if isinstance(node, ast.Name):
        raise CalculatorError(f"names are not allowed ({node.id!r}): use numbers and + - * / // % ** only")
    if isinstance(node, ast.Call):
        raise CalculatorError("function calls are not allowed: use numbers and + - * / // % ** only")
    raise CalculatorError(f"{type(node).__name__} is not allowed: use numbers and + - * / // % ** only")


def calculate(expression: str) -> int | float:
    """The value of an arithmetic ``expression``; :class:`CalculatorError` for anything else."""
    if not isinstance(expression, str):
        raise CalculatorError("the expression must be text")
    text = expression.strip().replace("×", "*").replace("÷", "/").replace("^", "**")
    if not text:
        raise CalculatorError("the expression is empty")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"expressions are limited to {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise CalculatorError(f"not an arithmetic expression ({exc.msg if hasattr(exc, 'msg') else exc})") from exc
    return _evaluate(tree, 0)

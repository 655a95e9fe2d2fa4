"""Code documentation from Python source with `ast`: functions, classes, parameters, docstrings,
line ranges, cyclomatic complexity and imports.

>>> doc = document_python("def f(x: int) -> int:\\n    '''Double.'''\\n    return 2 * x\\n", "f1")
>>> doc.functions[0].name, doc.functions[0].return_type, doc.functions[0].description
('f', 'int', 'Double.')
"""

from __future__ import annotations

import ast

from cairn.core import ClassDoc, CodeReference, FunctionDoc, ParameterDoc, content_hash

_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.With, ast.AsyncWith, ast.IfExp)
_FuncNode = ast.FunctionDef | ast.AsyncFunctionDef


def document_python(source: str, file_id: str) -> CodeReference | None:
    """Document a Python module; None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # CPython gives up on some input
        return None
    functions = [_function(n) for n in tree.body if isinstance(n, _FuncNode)]
    classes = [_class(n) for n in tree.body if isinstance(n, ast.ClassDef)]
    every = functions + [m for c in classes for m in c.methods]
    return CodeReference(
        code_id=f"code-{content_hash(file_id + source, 12)}",
        file_id=file_id,
        language="python",
        functions=functions,
        classes=classes,
        imports=_imports(tree),
        documentation=ast.get_docstring(tree) or "",
        complexity=max([f.complexity for f in every], default=1),
    )


def documented_share(code: CodeReference) -> float:
    """Share of public functions and methods that carry a docstring (1.0 when there are none)."""
    public = [f for f in code.functions if not f.name.startswith("_")]
    public += [m for c in code.classes for m in c.methods if not m.name.startswith("_")]
    if not public:
        return 1.0
    return sum(1 for f in public if f.description) / len(public)


def complexity(node: ast.AST) -> int:
    """McCabe-style: 1 + branches + boolean operators."""
    count = 1
    for child in ast.walk(node):
        if isinstance(child, _BRANCHES):
            count += 1
        elif isinstance(child, ast.BoolOp):
            count += len(child.values) - 1
        elif isinstance(child, ast.comprehension):
            count += 1 + len(child.ifs)
    return count


def _function(node: _FuncNode) -> FunctionDoc:
    args = node.args
    positional = args.posonlyargs + args.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = [_param(a, d) for a, d in zip(positional, defaults, strict=True)]
    params += [_param(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    return FunctionDoc(
        name=node.name,
        parameters=params,
        return_type=ast.unparse(node.returns) if node.returns else "",
        description=ast.get_docstring(node) or "",
        complexity=complexity(node),
        line_start=node.lineno,
        line_end=node.end_lineno or node.lineno,
    )


def _param(arg: ast.arg, default: ast.expr | None) -> ParameterDoc:
    return ParameterDoc(
        name=arg.arg,
        annotation=ast.unparse(arg.annotation) if arg.annotation else "",
        default=ast.unparse(default) if default is not None else None,
    )


def _class(node: ast.ClassDef) -> ClassDoc:
    return ClassDoc(
        name=node.name,
        methods=[_function(n) for n in node.body if isinstance(n, _FuncNode)],
        bases=[ast.unparse(b) for b in node.bases],
        description=ast.get_docstring(node) or "",
        line_start=node.lineno,
        line_end=node.end_lineno or node.lineno,
    )


def _imports(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return sorted(set(names))

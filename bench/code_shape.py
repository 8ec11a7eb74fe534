"""The shape of the code, as issue 39 measures it: the largest functions in pages/ and the count of ``Any`` in
lib/'s annotations (parameters, returns and annotated assignments, read from the AST).

    python bench/code_shape.py [--top 6]
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE_LIMIT = 80  # lines a function in pages/ may have


def page_functions(root: Path = ROOT) -> list[tuple[int, str]]:
    """(lines, 'file:function') for every function in pages/ and the app's entry, largest first."""
    out = []
    for path in [*sorted((root / "pages").glob("*.py")), root / "streamlit_app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno:
                out.append((node.end_lineno - node.lineno + 1, f"{path.name}:{node.name}"))
    return sorted(out, reverse=True)


def _annotations(tree: ast.AST) -> list[ast.expr]:
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            found += [a.annotation for a in every if a is not None and a.annotation is not None]
            if node.returns is not None:
                found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return found


def _any_in(expr: ast.expr) -> int:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # a string annotation: parse it
        try:
            expr = ast.parse(expr.value, mode="eval").body
        except SyntaxError:
            return 0
    return sum(1 for x in ast.walk(expr) if (isinstance(x, ast.Name) and x.id == "Any")
               or (isinstance(x, ast.Attribute) and x.attr == "Any"))


def any_counts(root: Path = ROOT) -> dict[str, int]:
    """``Any`` in the annotations of each module of lib/."""
    return {str(p.relative_to(root)): sum(_any_in(a) for a in _annotations(ast.parse(p.read_text(encoding="utf-8"))))
            for p in sorted((root / "lib").rglob("*.py"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=6)
    top = parser.parse_args().top
    funcs = page_functions()
    print(f"largest functions in pages/: {', '.join(f'{name} {n}' for n, name in funcs[:top])}")
    print(f"functions in pages/ over {PAGE_LIMIT} lines: {sum(1 for n, _ in funcs if n > PAGE_LIMIT)}")
    counts = any_counts()
    print(f"Any in lib/ annotations: {sum(counts.values())}")
    for path, n in sorted(counts.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n:4d} {path}")


if __name__ == "__main__":
    main()

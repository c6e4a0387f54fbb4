#!/usr/bin/env python3
"""The structure facts of issue 19, measured the same way before and after a redesign.

usage: scripts/structure-facts.py [--no-duplicates]

Prints Markdown:
  - which folder of Sources/HTTP refers to which: a folder refers to another when its code
    names a type (class, struct, enum, protocol, actor, typealias) declared in the other;
  - lines of router code (Sources/HTTP/Router, all lines and code lines);
  - public symbols per module (declarations marked `public` or `open`);
  - repeated blocks of six or more lines outside Rx (the `duplicates` command, when on PATH).

Reads the tree as text (comments and string literals stripped); a name declared in two folders
counts for both. It is a measure to compare runs by, not a compiler.
"""
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HTTP = ROOT / "Sources" / "HTTP"
ROUTER = HTTP / "Router"
# Top-level declarations only: a nested `State` in two folders is no reference between them.
DECL = re.compile(
    r"^(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
PUBLIC = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:final|nonisolated|static|class|override|indirect|"
    r"convenience|required|mutating|nonmutating|lazy|dynamic)\s+)*(?:public|open)\b(?!\s*\()"
    r"(?!\s+(?:import|extension)\b)",
    re.M,
)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip(source: str) -> str:
    """Source without comments and string literals (multi-line ones included)."""
    source = re.sub(r'"""[\s\S]*?"""', '""', source)
    source = re.sub(r"/\*[\s\S]*?\*/", "", source)
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)


def swift_files(folder: Path):
    return sorted(folder.rglob("*.swift"))


def http_folder_table() -> str:
    folders = sorted(p for p in HTTP.iterdir() if p.is_dir())
    declared = defaultdict(set)  # name -> folders
    texts = {}
    for folder in folders:
        texts[folder.name] = "\n".join(strip(f.read_text()) for f in swift_files(folder))
        for name in DECL.findall(texts[folder.name]):
            declared[name].add(folder.name)
    refers = defaultdict(lambda: defaultdict(set))  # from -> to -> names
    for folder in folders:
        for name in set(IDENT.findall(texts[folder.name])):
            for owner in declared.get(name, ()):
                if owner != folder.name:
                    refers[folder.name][owner].add(name)
    names = [f.name for f in folders]
    lines = ["| folder → refers to | " + " | ".join(names) + " | count |", "|---" * (len(names) + 2) + "|"]
    for source in names:
        cells = [str(len(refers[source][t])) if refers[source][t] else ("·" if t != source else "—") for t in names]
        lines.append(f"| {source} | " + " | ".join(cells) + f" | {sum(1 for t in names if refers[source][t])} |")
    lines.append("")
    lines.append("Cells: how many of the target folder's type names the row's folder uses.")
    cycles = sorted(
        (a, b) for a in names for b in names if a < b and refers[a][b] and refers[b][a]
    )
    lines.append(f"Pairs of folders that refer to each other: {len(cycles)}"
                 + (" (" + ", ".join(f"{a}↔{b}" for a, b in cycles) + ")" if cycles else ""))
    leaves = [n for n in names if not any(refers[n][t] for t in names)]
    lines.append("Leaves (refer to no other folder): " + (", ".join(leaves) or "none"))
    return "\n".join(lines)


def router_lines() -> str:
    total = code = 0
    files = swift_files(ROUTER)
    for f in files:
        text = f.read_text()
        total += text.count("\n")
        code += sum(1 for line in strip(text).splitlines() if line.strip())
    return f"{len(files)} files, {total} lines, {code} code lines (no blanks, no comments)"


def public_symbols() -> str:
    rows = ["| module | public/open declarations |", "|---|---|"]
    for module in sorted(p for p in (ROOT / "Sources").iterdir() if p.is_dir()):
        count = sum(len(PUBLIC.findall(strip(f.read_text()))) for f in swift_files(module))
        if count or list(swift_files(module)):
            rows.append(f"| {module.name} | {count} |")
    return "\n".join(rows)


def duplicates_outside_rx() -> str:
    tool = shutil.which("duplicates")
    if not tool:
        return "(the `duplicates` command is not on PATH: not measured)"
    out = subprocess.run(
        [tool, "--repo", str(ROOT), "--most", "200", "--seconds", "120"],
        capture_output=True, text=True, check=False,
    ).stdout
    rows = [l for l in out.splitlines() if re.match(r"D\d+ ", l)]
    rx = re.compile(r"(?:Sources|Tests)/Rx")
    outside = [r for r in rows if not rx.search(r)]
    by_area = defaultdict(int)
    for r in outside:
        sides = re.findall(r"(\S+?):\d+-\d+", r)
        areas = sorted({"/".join(s.split("/")[:2]) for s in sides})
        by_area[" ~ ".join(areas)] += 1
    lines = [f"{len(outside)} pairs outside Rx of {len(rows)} listed "
             f"({sum(1 for r in outside if 'boilerplate' in r)} marked boilerplate)", ""]
    lines += [f"- {area}: {n}" for area, n in sorted(by_area.items(), key=lambda kv: -kv[1])]
    lines += ["", "Pairs within Sources (not boilerplate):", ""]
    lines += [f"    {r}" for r in outside if "Sources/" in r and "boilerplate" not in r]
    trailer = [l for l in out.splitlines() if l.startswith(("left out", "incomplete", "("))]
    lines += [""] + trailer
    return "\n".join(lines)


def main() -> None:
    args = sys.argv[1:]
    if args not in ([], ["--no-duplicates"]):
        sys.exit("usage: scripts/structure-facts.py [--no-duplicates]")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"# Structure facts at {commit or 'this tree'}\n")
    print("## Sources/HTTP: which folder refers to which\n")
    print(http_folder_table())
    print("\n## Router code (Sources/HTTP/Router)\n")
    print(router_lines())
    print("\n## Public symbols per module\n")
    print(public_symbols())
    if args != ["--no-duplicates"]:
        print("\n## Repeated blocks of six or more lines outside Rx (`duplicates`)\n")
        print(duplicates_outside_rx())


if __name__ == "__main__":
    main()

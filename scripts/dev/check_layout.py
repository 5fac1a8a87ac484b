#!/usr/bin/env python3
"""The solver's layout rules, checked in CI (scripts/test.sh):
- outside solver/src/cases/<family>/, no code names a family (only the registry line does);
- solver/src/main.rs stays at most 150 lines, and no function in solver/src exceeds 80 lines;
- no import cycles between modules of solver/src, other than a module and its own ancestors
  (a child using its parent's items is how Rust modules are meant to work).
Prints what breaks a rule and exits 1; prints a one-line summary and exits 0 otherwise.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "solver", "src")


def rust_files():
    for d, _, files in os.walk(ROOT):
        for f in sorted(files):
            if f.endswith(".rs"):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def module_of(rel):
    """solver/src path -> module path as a tuple ('cases', 'heat', 'cpu')."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def code_lines(rel):
    text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)  # tests may name anything
    return [re.sub(r"//.*", "", l) for l in text.split("\n")]


def family_words(files, families):
    bad = []
    for rel in files:
        m = module_of(rel)
        if len(m) >= 2 and m[0] == "cases" and m[1] in families:
            continue
        for i, l in enumerate(code_lines(rel)):
            for fam in families:
                if re.search(rf"\b{fam}\b", l, re.I) and not (rel == os.path.join("cases", "mod.rs") and re.match(rf"\s*{fam},\s*$", l)):
                    bad.append(f"{rel}:{i + 1}: names the family '{fam}' outside its folder: {l.strip()}")
    return bad


def long_functions(files):
    bad = []
    for rel in files:
        code = code_lines(rel)
        for i, l in enumerate(code):
            m = re.match(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)", l)
            if not m or l.rstrip().endswith(";"):
                continue
            for j in range(i + 1, len(code)):
                if code[j].startswith(m.group(1) + "}") and not code[j].startswith(m.group(1) + "} else"):
                    if j - i + 1 > 80:
                        bad.append(f"{rel}:{i + 1}: fn {m.group(7)} has {j - i + 1} lines (> 80)")
                    break
    return bad


def imports(files, modules):
    """Edges module -> module from `use crate::...`, `use super::...` and `crate::a::b` paths."""
    edges = {m: set() for m in modules}
    for rel in files:
        me = module_of(rel)
        for l in code_lines(rel):
            for path in re.findall(r"\b((?:crate|super)(?:::\w+)+)", l):
                parts = path.split("::")
                base = list(me) if parts[0] == "super" else []
                if parts[0] == "super":
                    base = list(me[:-1]) if not rel.endswith("mod.rs") else list(me[:-1])
                    parts = parts[1:]
                    while parts and parts[0] == "super":
                        base, parts = base[:-1], parts[1:]
                else:
                    parts = parts[1:]
                target = tuple(base + parts)
                while target and target not in modules:
                    target = target[:-1]
                if target and target != me:
                    edges[me].add(target)
    return edges


def cycles(edges):
    def related(a, b):
        return a[: len(b)] == b or b[: len(a)] == a
    bad = []
    for a in edges:
        for b in edges[a]:
            if related(a, b):
                continue
            # Is there a path back from b to a through modules unrelated to both by ancestry?
            seen, stack = set(), [b]
            while stack:
                x = stack.pop()
                if x == a:
                    bad.append(f"import cycle: {'::'.join(a)} -> {'::'.join(b)} -> ... -> {'::'.join(a)}")
                    break
                if x in seen:
                    continue
                seen.add(x)
                stack.extend(y for y in edges.get(x, ()) if not related(x, y) or y == a)
    return sorted(set(bad))


def main():
    files = list(rust_files())
    families = sorted(d for d in os.listdir(os.path.join(ROOT, "cases")) if os.path.isdir(os.path.join(ROOT, "cases", d)))
    modules = {module_of(f) for f in files}
    bad = family_words(files, families) + long_functions(files) + cycles(imports(files, modules))
    main_lines = sum(1 for _ in open(os.path.join(ROOT, "main.rs")))
    if main_lines > 150:
        bad.append(f"main.rs has {main_lines} lines (> 150)")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"layout: {len(files)} files, families {', '.join(families)}: no family named outside its folder, main.rs {main_lines} lines, no function over 80 lines, no import cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())

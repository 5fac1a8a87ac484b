#!/usr/bin/env python3
"""The code's layout rules, checked in CI (scripts/test.sh).

solver/src:
- its layers, lowest first, each importing only its own or lower layers (LAYERS below, and the
  doc comment of solver/src/lib.rs, which must list the same);
- outside solver/src/cases/<family>/, no code names a family (only the registry line does), and
  no family imports another;
- solver/src/main.rs stays at most 150 lines.
solver/src, meshtool/src and kernels/ (its Rust and its CUDA):
- no function exceeds 80 lines;
- no import cycles between modules (Rust), other than a module and its own ancestors (a child
  using its parent's items is how Rust modules are meant to work).
Unit tests (a file's `#[cfg(test)] mod tests` and what follows it, `tests.rs` files) may import
and name anything. Prints what breaks a rule and exits 1; prints a summary and exits 0 otherwise.
"""
import os
import re
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SOLVER = os.path.join(REPO, "solver", "src")
MESHTOOL = os.path.join(REPO, "meshtool", "src")
KERNELS = os.path.join(REPO, "kernels")
MAX_FN_LINES = 80
MAX_MAIN_LINES = 150

# solver/src's layers, lowest first: (name, top-level modules). `main` is the binary.
LAYERS = [
    ("base", ["error", "real", "framework"]),
    ("backend", ["backend"]),
    ("output", ["output"]),
    ("grid", ["grid"]),
    ("mesh", ["mesh"]),
    ("numerics", ["numerics"]),
    ("diagnostics", ["diagnostics"]),
    ("cases", ["cases"]),
    ("commands", ["commands"]),
    ("main", ["main"]),
]
LAYER_OF = {m: i for i, (_, mods) in enumerate(LAYERS) for m in mods}


def files_under(root, exts):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "target")
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.relpath(os.path.join(d, f), root)


def module_of(rel):
    """A path under src/ -> its module path as a tuple ('cases', 'heat', 'cpu'); main.rs, the
    binary, is ('main',)."""
    parts = rel[:-3].split(os.sep)
    if parts == ["main"]:
        return ("main",)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def strip_comments(text):
    """Rust or CUDA text without its comments and string contents (line breaks kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == '"' and not re.match(r"'\"'", text[i - 1 : i + 2]):
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + "\n" * text.count("\n", i, j) + '"')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def code_text(root, rel, drop_tests=True):
    text = strip_comments(open(os.path.join(root, rel), encoding="utf-8").read())
    if drop_tests:
        # Unit tests may name anything: a file's test module and what follows it.
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)
    return text


def code_lines(root, rel):
    return code_text(root, rel).split("\n")


# -- Functions over MAX_FN_LINES ------------------------------------------------------------

def long_rust_functions(root, files, label):
    """Functions of rustfmt-formatted files: from `fn` to the `}` at its indentation."""
    bad = []
    for rel in files:
        code = code_text(root, rel, drop_tests=False).split("\n")
        for i, l in enumerate(code):
            m = re.match(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)", l)
            if not m or l.rstrip().endswith(";"):
                continue
            for j in range(i + 1, len(code)):
                if code[j].startswith(m.group(1) + "}") and not code[j].startswith(m.group(1) + "} else"):
                    if j - i + 1 > MAX_FN_LINES:
                        bad.append(f"{label}/{rel}:{i + 1}: fn {m.group(8)} has {j - i + 1} lines (> {MAX_FN_LINES})")
                    break
    return bad


CU_NOT_FUNCTION = re.compile(r"^(#|template\b|struct\b|class\b|union\b|enum\b|typedef\b|using\b|namespace\b|static_assert\b|extern\s+\"[^\"]*\"\s*\{)")


def first_branches(lines):
    """Lines with the `#else` / `#elif` branches of the preprocessor's conditionals blanked:
    a function is counted as its first branch compiles it."""
    out, skip = [], []  # skip: per open `#if`, whether this line's branch is a later one
    for l in lines:
        d = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b", l)
        if d and d.group(1).startswith("if"):
            skip.append(False)
        elif d and d.group(1) in ("elif", "else") and skip:
            skip[-1] = True
        elif d and d.group(1) == "endif" and skip:
            skip.pop()
        out.append("" if any(skip) or d else l)
    return out


def long_cuda_functions(root, files, label):
    """Functions of CUDA files: a definition that starts at the left margin (its signature's
    first line, after any `template <...>` line) to its closing brace."""
    bad = []
    for rel in files:
        code = first_branches(code_text(root, rel, drop_tests=False).split("\n"))
        i = 0
        while i < len(code):
            l = code[i]
            if not l or l[0].isspace() or CU_NOT_FUNCTION.match(l) or "(" not in l:
                i += 1
                continue
            # The signature runs to the first `{` (a definition) or `;` (a declaration, a
            # variable).
            depth, start, j, body = 0, i, i, None
            while j < len(code) and body is None:
                for ch in code[j]:
                    if ch == ";" and depth == 0:
                        body = False
                        break
                    if ch == "{":
                        body = True
                        break
                    if ch in "([":
                        depth += 1
                    elif ch in ")]":
                        depth -= 1
                if body is None:
                    j += 1
            if not body:
                i = j + 1
                continue
            # The body: to the brace that closes the first one.
            braces, k, done = 0, j, False
            while k < len(code) and not done:
                for ch in code[k]:
                    braces += (ch == "{") - (ch == "}")
                    if braces == 0 and ch == "}":
                        done = True
                        break
                if not done:
                    k += 1
            name = re.findall(r"(\w+)\s*\(", " ".join(code[start : j + 1]))
            name = next((n for n in name if n not in ("__launch_bounds__", "sizeof", "alignas")), "?")
            if k - start + 1 > MAX_FN_LINES:
                bad.append(f"{label}/{rel}:{start + 1}: function {name} has {k - start + 1} lines (> {MAX_FN_LINES})")
            i = k + 1
    return bad


# -- Imports -------------------------------------------------------------------------------

def expand(path):
    """`a::{b, c::{d, self}}` -> ['a::b', 'a::c::d', 'a::c'] (aliases dropped)."""
    path = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", path))
    k = path.find("{")
    if k < 0:
        return [path]
    prefix, depth, items, cur = path[:k], 0, [], ""
    for ch in path[k + 1 : path.rfind("}")]:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += (ch == "{") - (ch == "}")
        cur += ch
    items.append(cur)
    out = []
    for it in filter(None, items):
        if it == "self":
            out.append(prefix.rstrip(":"))
        else:
            out.extend(expand(prefix + it))
    return out


def resolve(me, path):
    """A `crate::`/`super::`/`self::` path from module `me` -> the module path it names."""
    parts = [p for p in path.split("::") if p]
    if parts[0] == "crate":
        return tuple(parts[1:])
    base = list(me)
    if parts[0] == "self":
        return tuple(base + parts[1:])
    while parts and parts[0] == "super":
        base, parts = base[:-1], parts[1:]
    return tuple(base + parts)


def imports(root, files, modules):
    """Every import of another module: {module: [(file, line, target module)]}, from `use`
    statements (braces expanded) and from `crate::` / `super::` paths in code."""
    found = {}
    for rel in files:
        me = module_of(rel)
        if me[-1:] == ("tests",) or me == ("main",):
            continue  # unit tests; the binary is its own crate (it imports the library by name)
        text = code_text(root, rel)
        paths = []
        for m in re.finditer(r"\buse\s+((?:crate|super|self)\b[^;]*);", text):
            line = text.count("\n", 0, m.start()) + 1
            paths += [(line, p) for p in expand(m.group(1))]
        rest = re.sub(r"\buse\s+(?:crate|super|self)\b[^;]*;", lambda m: "\n" * m.group(0).count("\n"), text)
        for i, l in enumerate(rest.split("\n")):
            paths += [(i + 1, p) for p in re.findall(r"\b((?:crate|super)(?:::\w+)+)", l)]
        for line, p in paths:
            target = resolve(me, p)
            while target and target not in modules:
                target = target[:-1]
            if target and target != me:
                found.setdefault(me, []).append((rel, line, target))
    return found


def related(a, b):
    return a[: len(b)] == b or b[: len(a)] == a


def cycles(found, label):
    edges = {m: {t for _, _, t in e} for m, e in found.items()}
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
                    pair = sorted(["::".join(a), "::".join(b)])
                    bad.append(f"{label}: import cycle: {pair[0]} -> ... -> {pair[1]} -> ... -> {pair[0]}")
                    break
                if x in seen:
                    continue
                seen.add(x)
                stack.extend(y for y in edges.get(x, ()) if not related(x, y) or y == a)
    return sorted(set(bad))


def layer_breaks(found):
    """Imports of a higher layer, and of another family."""
    bad = []
    for me, edges in found.items():
        for rel, line, t in edges:
            a, b = LAYER_OF.get(me[0]), LAYER_OF.get(t[0])
            where = f"solver/src/{rel}:{line}"
            if a is None or b is None:
                unknown = me[0] if a is None else t[0]
                bad.append(f"{where}: module '{unknown}' is in no layer (scripts/dev/check_layout.py LAYERS)")
            elif b > a:
                bad.append(f"{where}: {'::'.join(me)} ({LAYERS[a][0]}) imports {'::'.join(t)} of a higher layer ({LAYERS[b][0]})")
            elif me[0] == t[0] == "cases" and len(me) > 1 and len(t) > 1 and me[1] != t[1]:
                bad.append(f"{where}: family {me[1]} imports family {t[1]} ({'::'.join(t)}): shared code goes to a lower layer")
    return sorted(set(bad))


def lib_doc_lists_the_layers():
    """solver/src/lib.rs's doc comment states the layers in LAYERS' order."""
    doc = "\n".join(l[3:] for l in open(os.path.join(SOLVER, "lib.rs"), encoding="utf-8") if l.startswith("//!"))
    stated = re.findall(r"^\s*\d+\.\s+\*\*(\w+)\*\*", doc, flags=re.M)
    want = [name for name, _ in LAYERS]
    if stated != want:
        return [f"solver/src/lib.rs: its doc comment lists the layers {stated}, the check {want}"]
    return []


def family_words(files, families):
    bad = []
    for rel in files:
        m = module_of(rel)
        if len(m) >= 2 and m[0] == "cases" and m[1] in families:
            continue
        for i, l in enumerate(code_lines(SOLVER, rel)):
            for fam in families:
                if re.search(rf"\b{fam}\b", l, re.I) and not (rel == os.path.join("cases", "mod.rs") and re.match(rf"\s*{fam},\s*$", l)):
                    bad.append(f"solver/src/{rel}:{i + 1}: names the family '{fam}' outside its folder: {l.strip()}")
    return bad


def main():
    bad = []
    # solver
    files = list(files_under(SOLVER, ".rs"))
    families = sorted(d for d in os.listdir(os.path.join(SOLVER, "cases")) if os.path.isdir(os.path.join(SOLVER, "cases", d)))
    modules = {module_of(f) for f in files}
    found = imports(SOLVER, files, modules)
    bad += lib_doc_lists_the_layers() + layer_breaks(found) + family_words(files, families)
    bad += long_rust_functions(SOLVER, files, "solver/src") + cycles(found, "solver/src")
    main_lines = sum(1 for _ in open(os.path.join(SOLVER, "main.rs"), encoding="utf-8"))
    if main_lines > MAX_MAIN_LINES:
        bad.append(f"solver/src/main.rs has {main_lines} lines (> {MAX_MAIN_LINES})")
    # meshtool
    mfiles = list(files_under(MESHTOOL, ".rs"))
    mfound = imports(MESHTOOL, mfiles, {module_of(f) for f in mfiles})
    bad += long_rust_functions(MESHTOOL, mfiles, "meshtool/src") + cycles(mfound, "meshtool/src")
    # kernels
    kfiles = list(files_under(os.path.join(KERNELS, "src"), ".rs"))
    kfound = imports(os.path.join(KERNELS, "src"), kfiles, {module_of(f) for f in kfiles})
    bad += long_rust_functions(os.path.join(KERNELS, "src"), kfiles, "kernels/src") + cycles(kfound, "kernels/src")
    cufiles = list(files_under(os.path.join(KERNELS, "cuda"), (".cu", ".cuh")))
    bad += long_cuda_functions(os.path.join(KERNELS, "cuda"), cufiles, "kernels/cuda")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(
        f"layout: solver {len(files)} files in layers {' < '.join(n for n, _ in LAYERS)}, no import of a higher layer "
        f"or of another family ({', '.join(families)}), no family named outside its folder, main.rs {main_lines} lines; "
        f"solver, meshtool ({len(mfiles)} files) and kernels ({len(kfiles)} Rust, {len(cufiles)} CUDA files): "
        f"no function over {MAX_FN_LINES} lines, no import cycles"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

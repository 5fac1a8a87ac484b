//! A module's source as NVRTC gets it: the embedded headers inlined by a tiny preprocessor of
//! this crate, with `#line` directives, instead of NVRTC's include search (the binary needs no
//! files at run time, and the cache key covers every header a module uses).

use crate::{KernelError, Module, HEADERS};
use std::collections::HashSet;
use std::fmt::Write as _;

/// The source of `module` as NVRTC gets it: each `#include "NAME"` line replaced by the
/// embedded header NAME (recursively; a header with `#pragma once` only the first time), with
/// `#line` directives so that NVRTC's errors name the original file and line.
///
/// The preprocessor is deliberately tiny: it does not evaluate `#if` (an include inside a
/// conditional is inlined there, still under the conditional) nor see comments spanning lines,
/// and it leaves `#include <...>` to NVRTC's built-in headers.
pub fn source(module: Module) -> Result<String, KernelError> {
    resolve(module.name(), module.file(), module.text(), HEADERS)
}

/// What [`resolve`] acts on in a line.
pub(crate) enum Directive<'a> {
    Include(&'a str),
    PragmaOnce,
}

pub(crate) fn directive(line: &str) -> Option<Directive<'_>> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    if let Some(r) = rest.strip_prefix("include") {
        let r = r.trim_start().strip_prefix('"')?;
        return Some(Directive::Include(&r[..r.find('"')?]));
    }
    let r = rest.strip_prefix("pragma")?;
    let r = r.split("//").next().unwrap_or_default();
    (r.starts_with(char::is_whitespace) && r.trim() == "once").then_some(Directive::PragmaOnce)
}

/// Resolves the includes of `text` (file `file` of module `module`) against `headers`.
pub(crate) fn resolve(module: &str, file: &str, text: &str, headers: &[(&str, &str)]) -> Result<String, KernelError> {
    struct Resolver<'a> {
        module: &'a str,
        headers: &'a [(&'a str, &'a str)],
        once: HashSet<&'a str>,
        stack: Vec<&'a str>,
        out: String,
    }
    impl<'a> Resolver<'a> {
        fn file(&mut self, file: &'a str, text: &'a str) -> Result<(), KernelError> {
            self.stack.push(file);
            let _ = writeln!(self.out, "#line 1 \"{file}\"");
            for (i, line) in text.lines().enumerate() {
                match directive(line) {
                    None => {
                        self.out.push_str(line);
                        self.out.push('\n');
                    }
                    Some(Directive::PragmaOnce) => {
                        self.once.insert(file);
                        self.out.push('\n');
                    }
                    Some(Directive::Include(name)) => {
                        let &(header, htext) =
                            self.headers
                                .iter()
                                .find(|h| h.0 == name)
                                .ok_or_else(|| KernelError::UnknownHeader {
                                    module: self.module.into(),
                                    header: name.into(),
                                    file: file.into(),
                                    line: i + 1,
                                })?;
                        if self.once.contains(header) {
                            self.out.push('\n');
                            continue;
                        }
                        if self.stack.contains(&header) {
                            let mut chain = self.stack.clone();
                            chain.push(header);
                            return Err(KernelError::IncludeCycle {
                                module: self.module.into(),
                                chain: chain.join(" -> "),
                            });
                        }
                        self.file(header, htext)?;
                        // Back in this file, at the line after the include.
                        let _ = writeln!(self.out, "#line {} \"{file}\"", i + 2);
                    }
                }
            }
            self.stack.pop();
            Ok(())
        }
    }
    let mut r = Resolver {
        module,
        headers,
        once: HashSet::new(),
        stack: Vec::new(),
        out: String::with_capacity(2 * text.len()),
    };
    r.file(file, text)?;
    Ok(r.out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Maps each line of resolved source to (file, line) by its `#line` directives.
    fn line_map(src: &str) -> Vec<Option<(String, usize)>> {
        let mut at: Option<(String, usize)> = None;
        src.lines()
            .map(|l| {
                if let Some(d) = l.strip_prefix("#line ") {
                    let (n, f) = d.split_once(' ').unwrap();
                    at = Some((f.trim_matches('"').to_string(), n.parse().unwrap()));
                    None
                } else {
                    let here = at.clone().expect("source starts with #line");
                    at.as_mut().unwrap().1 += 1;
                    Some(here)
                }
            })
            .collect()
    }

    /// Every resolved line that is not blank is the line of the file its `#line` says.
    fn assert_lines_map_back(src: &str, files: &HashMap<&str, &str>) {
        for (line, at) in src.lines().zip(line_map(src)) {
            let Some((file, n)) = at else { continue };
            if line.is_empty() {
                continue;
            }
            let orig = files[file.as_str()].lines().nth(n - 1);
            assert_eq!(orig, Some(line), "resolved line mapped to {file}:{n}");
        }
    }

    #[test]
    fn module_sources_resolve_once_and_map_back() {
        let mut files: HashMap<&str, &str> = HEADERS.iter().copied().collect();
        for m in Module::ALL {
            files.insert(m.file(), m.text());
        }
        for m in Module::ALL {
            let src = source(m).unwrap();
            assert!(!src.contains("#include \""), "{m}: unresolved include");
            // reduce.cu includes common.cuh directly and through reduce.cuh.
            assert_eq!(src.matches("typedef unsigned int u32;").count(), 1, "{m}");
            assert_lines_map_back(&src, &files);
        }
        // The heat stencil's radius is heat's own.
        assert!(source(Module::Heat).unwrap().contains("#define HALO 4"));
        for m in [Module::Reduce, Module::Grid, Module::Sl, Module::Advect] {
            assert!(!source(m).unwrap().contains("HALO"), "{m}");
        }
    }

    #[test]
    fn resolver_nests_and_honours_pragma_once() {
        let headers: &[(&str, &str)] = &[
            ("base.cuh", "#pragma once\nint base;\n"),
            ("mid.cuh", "# pragma once // guard\n#include \"base.cuh\"\nint mid;\n"),
            (
                "top.cuh",
                "#pragma once\n#include \"mid.cuh\"\n  #  include \"base.cuh\"\nint top;\n",
            ),
            ("plain.cuh", "int plain;\n"),
        ];
        let root = "#include \"top.cuh\"\r\n#include\"base.cuh\"\n#include <cuda_fp16.h>\n#include \"plain.cuh\"\n#include \"plain.cuh\"\nint root;";
        let src = resolve("probe", "probe.cu", root, headers).unwrap();
        for (decl, times) in [
            ("int base;", 1),
            ("int mid;", 1),
            ("int top;", 1),
            ("int plain;", 2),
            ("int root;", 1),
        ] {
            assert_eq!(src.matches(decl).count(), times, "{decl} in\n{src}");
        }
        assert!(src.contains("#include <cuda_fp16.h>\n"));
        assert!(!src.contains("pragma"));
        // Nested, in order: base inside mid inside top, before the root's own lines.
        let pos = |s: &str| src.find(s).unwrap();
        assert!(
            pos("int base;") < pos("int mid;")
                && pos("int mid;") < pos("int top;")
                && pos("int top;") < pos("int root;")
        );
        let mut files: HashMap<&str, &str> = headers.iter().copied().collect();
        files.insert("probe.cu", root);
        assert_lines_map_back(&src, &files);
        // The root's last line is still its line 6.
        let last = line_map(&src).last().cloned().flatten();
        assert_eq!(last, Some(("probe.cu".to_string(), 6)));
    }

    #[test]
    fn resolver_errors_name_the_module_and_header() {
        let headers: &[(&str, &str)] = &[("a.cuh", "#pragma once\n\n#include \"missing.cuh\"\n")];
        let e = resolve("probe", "probe.cu", "int x;\n#include \"a.cuh\"\n", headers).unwrap_err();
        assert!(
            matches!(&e, KernelError::UnknownHeader { module, header, file, line: 3 }
                if module == "probe" && header == "missing.cuh" && file == "a.cuh"),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("probe") && msg.contains("missing.cuh") && msg.contains("a.cuh:3"),
            "{msg}"
        );

        let cyclic: &[(&str, &str)] = &[("a.cuh", "#include \"b.cuh\"\n"), ("b.cuh", "#include \"a.cuh\"\n")];
        let e = resolve("probe", "probe.cu", "#include \"a.cuh\"\n", cyclic).unwrap_err();
        assert!(e.to_string().contains("probe.cu -> a.cuh -> b.cuh -> a.cuh"), "{e}");
        // With #pragma once the same pair resolves.
        let guarded: &[(&str, &str)] = &[
            ("a.cuh", "#pragma once\n#include \"b.cuh\"\n"),
            ("b.cuh", "#pragma once\n#include \"a.cuh\"\n"),
        ];
        resolve("probe", "probe.cu", "#include \"a.cuh\"\n", guarded).unwrap();
    }
}

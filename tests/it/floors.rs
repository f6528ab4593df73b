//! The one-way house: every module stands on a floor (ARCHITECTURE.md, "Floors"), and no module imports from a
//! floor above its own.
//!
//! The floors are read from ARCHITECTURE.md itself, so the document and this check cannot drift apart. Imports
//! are read from the source text (`crate::module` paths, grouped `use crate::{a, b::c}` included); unit-test
//! modules and test-only imports (under `#[cfg(test)]`) may reach anywhere and are not read. Doc comments are
//! read like code: a link to a higher floor is an upward reference too.
//!
//! The law in one home: the verdicts the law makes of a parcel's evidence are defined in `src/law` and named
//! by no other module (read from the source the same way, comments aside).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Parses the "Floors" table of ARCHITECTURE.md: rows `| N | `a`, `b` | ... |` give each module its floor.
fn floors(architecture: &str) -> BTreeMap<String, u32> {
    let section = architecture
        .split("\n## Floors")
        .nth(1)
        .expect("ARCHITECTURE.md has a '## Floors' section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let mut floors = BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(floor), Some(modules)) = (cells.get(1), cells.get(2)) else { continue };
        let Ok(floor) = floor.parse::<u32>() else { continue };
        for name in modules.split('`').skip(1).step_by(2) {
            floors.insert(name.to_string(), floor);
        }
    }
    floors
}

/// The source without its unit tests: a `#[cfg(test)] mod` ends the text read, and an item under a lone
/// `#[cfg(test)]` (a test-only import) is left out.
fn outside_tests(source: &str) -> String {
    let mut code = String::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            match lines.next() {
                Some(item) if item.trim_start().starts_with("mod ") => break,
                _ => continue,
            }
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The top-level modules a source file names through `crate::`, outside its unit tests.
fn imported_modules(source: &str) -> BTreeSet<String> {
    let code = outside_tests(source);
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a::b, c}`: the names at depth one of the braces.
            let mut depth = 0usize;
            let mut name = String::new();
            let mut at_start = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => at_start = true,
                    c if depth == 0 && at_start && (c.is_alphanumeric() || c == '_') => name.push(c),
                    _ if depth == 0 && at_start && !name.is_empty() => {
                        found.insert(std::mem::take(&mut name));
                        at_start = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                found.insert(name);
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules `lib.rs` declares for its tests only (`#[cfg(test)]` above `mod name;`, doc comments and
/// attributes between): whole test files (a module's `tests.rs`) may import them.
fn test_only_modules(lib: &str) -> BTreeSet<String> {
    let mut test_only = BTreeSet::new();
    let mut under_cfg_test = false;
    for line in lib.lines().map(str::trim) {
        if line == "#[cfg(test)]" {
            under_cfg_test = true;
        } else if let Some(name) = line.strip_prefix("mod ").and_then(|rest| rest.strip_suffix(';')) {
            if under_cfg_test {
                test_only.insert(name.to_string());
            }
            under_cfg_test = false;
        } else if !line.starts_with("#[") && !line.starts_with("///") {
            under_cfg_test = false;
        }
    }
    test_only
}

/// Every `crate::` import of the library, as (importing module, imported module, file).
fn imports(src: &Path) -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let test_only = test_only_modules(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut edges = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        for target in imported_modules(&fs::read_to_string(&file).unwrap()) {
            if target != module && !test_only.contains(&target) {
                edges.push((module.clone(), target, relative.clone()));
            }
        }
    }
    edges
}

#[test]
fn no_module_imports_from_a_floor_above_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let floors = floors(&fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap());
    let edges = imports(&root.join("src"));
    assert!(edges.len() > 50, "the import reader found only {} imports in src/", edges.len());

    let mut unplaced = BTreeSet::new();
    let mut upward = BTreeMap::<(String, String), Vec<String>>::new();
    for (from, to, file) in &edges {
        match (floors.get(from), floors.get(to)) {
            (Some(f), Some(t)) if t > f => {
                upward.entry((from.clone(), to.clone())).or_default().push(file.clone())
            }
            (Some(_), Some(_)) => {}
            (None, _) => drop(unplaced.insert(from.clone())),
            (_, None) => drop(unplaced.insert(to.clone())),
        }
    }
    assert!(unplaced.is_empty(), "modules with no floor in ARCHITECTURE.md's Floors table: {unplaced:?}");
    assert!(
        upward.is_empty(),
        "imports from a floor above the importer's own (move the shared item down a floor, or pass it in): {upward:?}"
    );
}

/// The modules that import one another, directly or through others: strongly connected sets of two or more
/// top-level modules (Tarjan's algorithm over the import graph), each sorted.
fn cycles(edges: &[(String, String, String)]) -> Vec<Vec<String>> {
    let mut graph = BTreeMap::<&str, BTreeSet<&str>>::new();
    for (from, to, _) in edges {
        graph.entry(from).or_default().insert(to);
        graph.entry(to).or_default();
    }
    struct Walk<'a> {
        graph: &'a BTreeMap<&'a str, BTreeSet<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        for &u in &w.graph[v] {
            if !w.index.contains_key(u) {
                visit(w, u);
                let low = w.low[v].min(w.low[u]);
                w.low.insert(v, low);
            } else if w.stack.contains(&u) {
                let low = w.low[v].min(w.index[u]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let at = w.stack.iter().position(|&x| x == v).unwrap();
            let mut set: Vec<String> = w.stack.drain(at..).map(String::from).collect();
            if set.len() > 1 {
                set.sort();
                w.found.push(set);
            }
        }
    }
    let mut walk = Walk {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for &v in graph.keys() {
        if !walk.index.contains_key(v) {
            visit(&mut walk, v);
        }
    }
    walk.found
}

#[test]
fn no_two_top_level_modules_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = cycles(&imports(&root.join("src")));
    assert!(
        found.is_empty(),
        "top-level modules that import one another (merge them or move the shared item down): {found:?}"
    );
}

#[test]
fn the_cycle_finder_sees_a_cycle_through_three_modules() {
    let edge = |a: &str, b: &str| (a.to_string(), b.to_string(), String::new());
    let found = cycles(&[edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "d"), edge("d", "e")]);
    assert_eq!(found, vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
    assert!(cycles(&[edge("a", "b"), edge("b", "c")]).is_empty());
}

#[test]
fn the_floors_table_lists_exactly_the_modules_of_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed: BTreeSet<String> =
        floors(&fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap()).into_keys().collect();
    let in_src: BTreeSet<String> = fs::read_dir(root.join("src"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    assert_eq!(listed, in_src, "ARCHITECTURE.md's Floors table and the top-level entries of src/ differ");
}

/// The law's verdicts on a parcel's evidence, each with the one file of `src/` that decides it: whether it
/// uses public sewer (§I.B), which flood elevation binds its system and the screening without a surveyed
/// bottom (§X), whether the law covers it and on which periodic tier (§I.C, §IV.A), and the sentence saying
/// why (which walks the same rules); whether a new system was permitted before it was built (asked by a
/// system's life, `law::systems::life`). The pipeline asks for the first through `law::judge`.
const VERDICTS: &[(&str, &str)] = &[
    ("public_sewer", "law/sewer.rs"),
    ("flood_check", "law/flood.rs"),
    ("flood_screening", "law/flood.rs"),
    ("decide_tier", "law/coverage.rs"),
    ("explain_into", "law/coverage.rs"),
    ("answered_on_time", "law/clocks.rs"),
];

/// The verdicts of [`VERDICTS`] that `source` names outside its unit tests and comments, each as often as
/// named: a call, a method of the same name, an import or a definition (`fn name`, as `defines` tells).
fn verdicts_named(source: &str) -> Vec<(&'static str, bool)> {
    let mut named = Vec::new();
    for line in outside_tests(source).lines() {
        let code = line.split("//").next().unwrap_or_default();
        let words: Vec<&str> = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
        for (at, word) in words.iter().enumerate() {
            if let Some(&(name, _)) = VERDICTS.iter().find(|(name, _)| name == word) {
                // `fn name`: the word just before it is `fn`.
                let defines = at > 0 && words[at - 1] == "fn";
                named.push((name, defines));
            }
        }
    }
    named
}

/// No module outside `law` decides a legal question: each verdict is defined in its file of `src/law` and
/// nowhere else, and no other module of `src/` calls, imports or redefines it (as `classify` once asked the
/// rule set for the public-sewer and flood verdicts). Unit tests may call a verdict to check it.
#[test]
fn no_module_outside_law_decides_a_legal_question() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut defined = BTreeMap::<&str, Vec<String>>::new();
    let mut outside = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        for (name, defines) in verdicts_named(&fs::read_to_string(&file).unwrap()) {
            if defines {
                defined.entry(name).or_default().push(relative.clone());
            }
            if !relative.starts_with("law/") {
                outside.push(format!("{relative}: {name}"));
            }
        }
    }
    for &(name, home) in VERDICTS {
        assert_eq!(
            defined.get(name).map(Vec::as_slice).unwrap_or_default(),
            [home],
            "the verdict {name} is decided in {home} and defined nowhere else"
        );
    }
    assert!(
        outside.is_empty(),
        "modules outside law that decide a legal question (let law::judge or another law step decide, and \
         pass the evidence in): {outside:?}"
    );
}

/// The scan sees a verdict asked outside `law` as a method or a path, and its definition; it does not see a
/// longer name that starts alike, a comment, or a unit test.
#[test]
fn the_verdict_scan_sees_a_verdict_asked_and_defined() {
    let asked = "let s = rules.public_sewer(&facts);\nlet d = crate::law::coverage::decide_tier(r, f);";
    assert_eq!(verdicts_named(asked), [("public_sewer", false), ("decide_tier", false)]);
    assert_eq!(verdicts_named("    pub fn flood_check<'a>(\n"), [("flood_check", true)]);
    let quiet = "let c = public_sewer_codes; // flood_screening(x)\n#[cfg(test)]\nmod tests {\n    decide_tier();\n}\n";
    assert!(verdicts_named(quiet).is_empty(), "{:?}", verdicts_named(quiet));
}

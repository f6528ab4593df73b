//! The one-way house: every module stands on a floor (ARCHITECTURE.md, "Floors"), and no module imports from a
//! floor above its own.
//!
//! The floors are read from ARCHITECTURE.md itself, so the document and this check cannot drift apart. Imports
//! are read from the source text (`crate::module` paths, grouped `use crate::{a, b::c}` included); unit-test
//! modules and test-only imports (under `#[cfg(test)]`) may reach anywhere and are not read. Doc comments are
//! read like code: a link to a higher floor is an upward reference too.

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

/// Every `crate::` import of the library, as (importing module, imported module, file).
fn imports(src: &Path) -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut edges = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        for target in imported_modules(&fs::read_to_string(&file).unwrap()) {
            if target != module {
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

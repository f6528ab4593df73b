//! The README as a planner reads it: every `lakeshore` command of its code blocks is run as written, in the
//! README's order, on a copy of the sample counties, and exits as the README says (0 unless the line ends
//! with `# exits N`); where a block shows a run (`$ lakeshore ...` and what it prints), each line shown is
//! one the run prints (a line ending in `...` is the start of one), and the problems it lists are all the
//! run reports. `lakeshore` is the binary under test, or `LAKESHORE_BIN` (`.ci/run` sets it to the one
//! `cargo install` put on the PATH). The layer flags' `--help` names every layer format the README's table
//! lists, or points to the table.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `lakeshore` command of the README: its code block (numbered from 0), its line, its words, the exit
/// code it is said to give, and the lines the README shows it printing (none for a `sh` block).
#[derive(Debug)]
struct Example {
    block: usize,
    line: usize,
    words: Vec<String>,
    exit: i32,
    shown: Vec<String>,
}

/// The `lakeshore` commands of the README's fenced code blocks, in order.
fn examples(readme: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut block: Option<String> = None;
    let mut blocks = 0;
    for (n, raw) in readme.lines().enumerate() {
        let line = raw.trim();
        if let Some(language) = line.strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(language.to_string()),
            };
            blocks += usize::from(block.is_some());
            continue;
        }
        let Some(language) = block.as_deref() else { continue };
        let command = match language {
            "sh" => line.strip_prefix("lakeshore "),
            "text" => line.strip_prefix("$ lakeshore "),
            _ => None,
        };
        if let Some(command) = command {
            let (command, exit) = match command.split_once(" # exits ") {
                Some((command, code)) => {
                    (command, code.trim().parse().unwrap_or_else(|_| panic!("README.md:{}: bad exit", n + 1)))
                }
                None => (command, 0),
            };
            assert!(
                !command.contains(['"', '\'', '>', '|', '&', ';', '#']),
                "README.md:{}: a command the test cannot run without a shell: {command}",
                n + 1
            );
            let words = command.split_whitespace().map(String::from).collect();
            examples.push(Example { block: blocks, line: n + 1, words, exit, shown: Vec::new() });
        } else if language == "text" && line.starts_with("$ ") {
            // A transcript of another program: its lines are not lakeshore's.
            examples.push(Example {
                block: blocks,
                line: n + 1,
                words: Vec::new(),
                exit: 0,
                shown: Vec::new(),
            });
        } else if language == "text" {
            // What the block's last command printed; a block with no command shows no run.
            if let Some(last) = examples.last_mut().filter(|e| e.block == blocks) {
                if !line.is_empty() {
                    last.shown.push(line.to_string());
                }
            }
        }
    }
    examples.retain(|e| !e.words.is_empty());
    examples
}

/// The folder the commands of one block run in: the sample counties and rule sets where the README names them
/// (`data/sample/`, `data/sample-problems/`, `data/rules/`), the sample as `county.toml` and its layers (the
/// README's own county), and `county/` holding the sample's layers and record files without a config, for
/// `lakeshore init county/`.
fn county_folder() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = crate::common::fresh_dir("readme");
    for sub in ["data/sample", "data/sample-problems", "data/rules"] {
        crate::common::copy_files(&root.join(sub), &dir.join(sub), |_| true);
    }
    crate::common::copy_files(&root.join("data/sample"), &dir, |_| true);
    crate::common::copy_files(&root.join("data/sample"), &dir.join("county"), |name| {
        !name.ends_with(".toml") && name != "README.md"
    });
    dir
}

/// The binary under test: `LAKESHORE_BIN`, else the one Cargo built for the tests.
fn binary() -> PathBuf {
    std::env::var_os("LAKESHORE_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lakeshore")), PathBuf::from)
}

/// Whether the run's output holds `shown`: a line equal to it, whitespace runs aside, or, for a line the
/// README cuts short with `...`, one starting with what comes before.
fn printed(output: &[String], shown: &str) -> bool {
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = squeeze(shown);
    match shown.strip_suffix("...") {
        Some(start) => {
            let start = start.trim_end_matches([' ', ',']);
            output.iter().any(|line| squeeze(line).starts_with(start))
        }
        None => output.iter().any(|line| squeeze(line) == shown),
    }
}

/// Whether `line` of a run's stderr is a problem it reports (not a stop, a note or a warning).
fn is_problem(line: &str) -> bool {
    line.starts_with("lakeshore: ")
        && !line.starts_with("lakeshore: error")
        && !line.starts_with("lakeshore: warning")
}

#[test]
fn every_readme_command_exits_as_the_readme_says() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let examples = examples(&readme);
    // The README's blocks hold this many `lakeshore` commands (counted by hand); a block the parser missed
    // would leave its commands untested.
    assert_eq!(examples.len(), 24, "{examples:#?}");
    let lakeshore = binary();
    let mut wrong = Vec::new();
    let mut dir = (usize::MAX, PathBuf::new());
    for example in &examples {
        // Each block runs in a folder of its own, its commands in turn (a batch issued, then reprinted).
        if dir.0 != example.block {
            dir = (example.block, county_folder());
        }
        let dir = &dir.1;
        let run = Command::new(&lakeshore).args(&example.words).current_dir(dir).output().unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        let stderr = String::from_utf8_lossy(&run.stderr);
        let command = format!("README.md:{}: lakeshore {}", example.line, example.words.join(" "));
        if run.status.code() != Some(example.exit) {
            wrong.push(format!(
                "{command}: exit {:?}, the README says {}\n{stderr}",
                run.status.code(),
                example.exit
            ));
            continue;
        }
        let output: Vec<String> = stdout.lines().chain(stderr.lines()).map(String::from).collect();
        for shown in example.shown.iter().filter(|s| *s != "...") {
            if !printed(&output, shown) {
                wrong.push(format!("{command}: the README shows a line the run does not print:\n  {shown}"));
            }
        }
        // Where the README shows a run's count of problems, it lists every one.
        let count =
            example.shown.iter().find_map(|l| l.strip_suffix(" problem(s) reported")?.parse::<usize>().ok());
        if let Some(count) = count {
            let listed: Vec<String> = example.shown.iter().filter(|l| is_problem(l)).cloned().collect();
            let is_listed = |line: &str| listed.iter().any(|shown| printed(&[line.to_string()], shown));
            let unlisted: Vec<&str> = stderr.lines().filter(|l| is_problem(l) && !is_listed(l)).collect();
            if listed.len() != count || !unlisted.is_empty() {
                wrong.push(format!(
                    "{command}: the README says {count} problems and lists {}; the run reports these it does not \
                     list: {unlisted:#?}",
                    listed.len()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn the_readme_counts_its_commands_in_order() {
    let examples = examples(
        "text\n```sh\n# a comment\nlakeshore init county/\nlakeshore buffer --distance 5 # exits 2\n```\n\
         ```text\n$ lakeshore schedule --out out/\n...\n3 problem(s) reported\n\n$ echo $?\n2\n```\n\
         ```toml\nlakeshore = 1\n```\n",
    );
    let got: Vec<_> =
        examples.iter().map(|e| (e.block, e.words.join(" "), e.exit, e.shown.clone())).collect();
    assert_eq!(
        got,
        [
            (1, "init county/".to_string(), 0, vec![]),
            (1, "buffer --distance 5".to_string(), 2, vec![]),
            (
                2,
                "schedule --out out/".to_string(),
                0,
                vec!["...".to_string(), "3 problem(s) reported".to_string()]
            ),
        ]
    );
    let output = ["note: data/x.shp: watersheds the rule set does not name, (a, b)".to_string()];
    assert!(printed(&output, "note: data/x.shp: watersheds the rule set does not name, ..."));
    assert!(!printed(&output, "note: data/x.shp: towns ..."));
    assert!(printed(&output, "note:  data/x.shp: watersheds the rule set does not name, (a, b)"));
}

/// The layer formats of the README's format table, each by the first word of its first column (`ESRI`
/// aside): `Shapefile`, `GeoJSON`, ...
fn layer_formats(readme: &str) -> Vec<String> {
    let table = readme.split("| format | name it as | CRS from |").nth(1).expect("the README's format table");
    table
        .lines()
        .skip(2)
        .map_while(|line| line.trim().strip_prefix('|'))
        .filter_map(|row| row.split('|').next().unwrap().split_whitespace().find(|w| *w != "ESRI"))
        .map(str::to_lowercase)
        .collect()
}

#[test]
fn the_layer_flags_name_every_format_or_the_table() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let formats = layer_formats(&readme);
    assert!(formats.len() >= 4 && formats.contains(&"shapefile".to_string()), "{formats:?}");
    for command in ["schedule", "buffer", "map"] {
        let help = Command::new(binary()).args([command, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&help.stdout).to_lowercase();
        // Each option's paragraph, from its line to the next option's.
        let mut options: Vec<String> = Vec::new();
        for line in help.lines() {
            match options.last_mut() {
                Some(option) if !line.trim_start().starts_with('-') => option.push_str(line),
                _ => options.push(line.to_string()),
            }
        }
        // A layer flag's paragraph; the DEM's (an elevation raster, "ESRI ASCII grid") names no layer format.
        let layer_flag = |o: &&String| {
            o.contains("<file>") && !o.contains("raster") && formats.iter().any(|f| o.contains(f))
        };
        for option in options.iter().filter(layer_flag) {
            let missing: Vec<_> = formats.iter().filter(|f| !option.contains(f.as_str())).collect();
            assert!(
                option.contains("format table") || missing.is_empty(),
                "{command} --help names some layer formats but not {missing:?}: {option}"
            );
        }
    }
}

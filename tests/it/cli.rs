//! The everyday command line: every command's `--help` carries an example, completions list every command,
//! `--quiet` prints nothing on stdout, and a bad `--years` or `--by` is refused with what to write instead.

use std::path::Path;
use std::process::{Command, Output};

const COMMANDS: [&str; 6] = ["schedule", "obligations", "notices", "buffer", "workload", "map"];

fn lakeshore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cannot run the lakeshore binary")
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in COMMANDS {
        let out = lakeshore(&[command, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{command} --help failed");
        assert!(
            help.contains(&format!("Example: lakeshore {command} ")),
            "{command} --help has no example:\n{help}"
        );
    }
}

#[test]
fn completions_name_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let out = lakeshore(&["completions", shell]);
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        for command in COMMANDS {
            assert!(script.contains(command), "{shell} completions lack {command}");
        }
    }
}

#[test]
fn quiet_prints_nothing_on_stdout() {
    let dir = crate::scratch::root().join("cli-quiet");
    let quiet = |config: &str| {
        let args = ["schedule", "--config", config, "--as-of", "2027-01-15", "--quiet", "--out"];
        let out = lakeshore(&[&args[..], &[dir.to_str().unwrap()]].concat());
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        out
    };
    // The clean sample: exit 0 and nothing on stderr either.
    let out = quiet("data/sample/county.toml");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(Path::new(&dir).join("schedule.csv").exists());
    // The problem sample's deliberately bad records: exit 2 and one line saying how many and where they are
    // (its README's table: the two of samples.csv, the one of pipes.csv and two permits recorded beyond
    // their terms among them).
    let out = quiet("data/sample-problems/county.toml");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "lakeshore: 16 problems, listed in problems.csv\n");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_flags_say_what_to_write() {
    let out = lakeshore(&["workload", "--config", "data/sample/county.toml", "--years", "2030..2027"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("write it as 2027..2036"));
    let out = lakeshore(&["map", "--config", "data/sample/county.toml", "--by", "colour"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[possible values: tier, status, notice]"));
    // Map formats are the map's: a table command says so.
    let out = lakeshore(&["schedule", "--config", "data/sample/county.toml", "--format", "csv,png"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only `lakeshore map` draws maps"));
    let out = lakeshore(&["schedule", "--config", "data/sample/county.toml", "--format", "xml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[possible values: csv, geojson, parquet, gpkg"));
    // The workload has no places: a format of places is refused, not dropped.
    let out = lakeshore(&["workload", "--config", "data/sample/county.toml", "--format", "geojson"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format geojson: the workload is counts"));
    // A notices year far from the as-of date is a typo, refused before anything is written.
    let dir = crate::common::fresh_dir("notices-year");
    let notices = ["notices", "--config", "data/sample/county.toml", "--as-of", "2027-01-15", "--year"];
    let out = lakeshore(&[&notices[..], &["20277", "--out", dir.join("out").to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--year 20277 is more than 10 years from the as-of")
    );
    assert!(!dir.join("out").exists(), "nothing is written");
    // A buffer of no width, or one wider than the Earth (whose polygon no plane holds), is refused.
    for distance in ["0", "1e12"] {
        let out = lakeshore(&["buffer", "--config", "data/sample/county.toml", "--distance", distance]);
        assert_eq!(out.status.code(), Some(1), "{distance}");
        let told = String::from_utf8_lossy(&out.stderr);
        assert!(told.contains("greater than 0 and up to 528000 (100 miles)"), "{told}");
    }
    let out = lakeshore(&["buffer", "--config", "data/sample/county.toml", "--from", " "]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from is empty: give shoreline"));
    // A folder given for a file, and a rule set that is not there, say which file to give.
    let out = lakeshore(&["schedule", "--config", "data/sample", "--as-of", "2027-01-15"]);
    assert_eq!(out.status.code(), Some(1));
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(
        told.contains(
            "a folder, not a config file; give the config file in it: --config data/sample/county.toml"
        ),
        "{told}"
    );
    let out =
        lakeshore(&["schedule", "--config", "data/sample/county.toml", "--rules", "data/no-such-rules.toml"]);
    assert_eq!(out.status.code(), Some(1));
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("no-such-rules.toml") && told.contains("cannot read the rule set"), "{told}");
}

/// A stopped run says what stopped it once: a mistake in the config file as a compiler would put it (not
/// followed by the toml crate's own account of it), a folder that cannot be made with the system's reason once.
#[test]
fn an_error_is_told_once() {
    let dir = crate::scratch::root().join("cli-told");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    let config = dir.join("county.toml");
    std::fs::write(&config, "parcel_twon = 1\n").unwrap();
    let out = dir.join("out");
    let args = ["schedule", "--config", config.to_str().unwrap(), "--as-of", "2027-01-15", "--out"];
    let run = lakeshore(&[&args[..], &[out.to_str().unwrap()]].concat());
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.starts_with(&format!("lakeshore: error: {}:1:1: ", config.display())), "{stderr}");
    assert!(stderr.contains("\n1 | parcel_twon = 1\n"), "{stderr}");
    assert_eq!(stderr.matches("parcel_twon = 1").count(), 1, "the mistake is shown twice:\n{stderr}");

    // --out under a plain file: the folder cannot be made, for the reason the system gives, and what to do.
    let out = config.join("out");
    let reason = std::fs::create_dir_all(&out).unwrap_err();
    let args = ["schedule", "--config", "data/sample/county.toml", "--as-of", "2027-01-15", "--out"];
    let run = lakeshore(&[&args[..], &[out.to_str().unwrap()]].concat());
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        format!(
            "lakeshore: error: {}: {reason}: give --out a folder you can write in (or remove what stands in the \
             way)\n",
            out.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A pipe into `head` that has read enough closes stdout before the command tells what it wrote: the run still
/// publishes its outputs and exits as it would have, rather than stopping at the first line it cannot print.
#[test]
fn a_closed_stdout_does_not_stop_a_run() {
    let out = crate::common::fresh_dir("closed-stdout");
    for (command, file) in [("schedule", "schedule.csv"), ("workload", "workload.csv")] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .args([command, "--config", "data/sample/county.toml", "--as-of", "2027-01-15", "--out"])
            .arg(out.join(command))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("cannot run the lakeshore binary");
        // The reading end closed before anything is read.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{command}: {stderr}");
        assert!(out.join(command).join(file).is_file(), "{command}: no {file}: {stderr}");
        assert!(out.join(command).join("run.json").is_file(), "{command}: no run.json: {stderr}");
    }
}

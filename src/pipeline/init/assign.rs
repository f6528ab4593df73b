//! Which file plays which role. First the parcels: of several layers that fit them, the newest is taken (by
//! the year in its name, else by the file's modification date) and said; then every role is given a file as
//! one matching of files to roles with the best total score ([`best_assignment`]), the required roles first,
//! so that a required role never stays empty while a file fits it as a runner-up. A file that fits a role as
//! well as the one it was given, and plays no other, makes a tie, left undecided rather than guessed.

use std::collections::HashSet;

use super::contents::{field_map, id_column};
use super::signals::{score, ENOUGH, REQUIRED, SIGNALS};
use super::{RecordColumns, Survey};
use crate::formats::{read_layer, ReadOptions};

/// Added to the score of a file for a required role, so that the matching fills the required roles before it
/// weighs any optional one.
const REQUIRED_FIRST: i64 = 1_000;

/// Rows to distinct columns with the least total cost (`cost` has at least as many columns as rows): the
/// Hungarian method, O(rows² × columns).
pub fn best_assignment(cost: &[Vec<i64>]) -> Vec<usize> {
    let n = cost.len();
    let m = cost.first().map_or(0, Vec::len);
    let inf = i64::MAX / 4;
    let (mut u, mut v) = (vec![0i64; n + 1], vec![0i64; m + 1]);
    let (mut p, mut way) = (vec![0usize; m + 1], vec![0usize; m + 1]);
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut min_v = vec![inf; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let (i0, mut delta, mut j1) = (p[j0], inf, 0);
            for j in 1..=m {
                if !used[j] {
                    let reduced = cost[i0 - 1][j - 1] - u[i0] - v[j];
                    if reduced < min_v[j] {
                        min_v[j] = reduced;
                        way[j] = j0;
                    }
                    if min_v[j] < delta {
                        delta = min_v[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_v[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        while j0 != 0 {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        }
    }
    let mut row_to = vec![0; n];
    for j in 1..=m {
        if p[j] != 0 {
            row_to[p[j] - 1] = j - 1;
        }
    }
    row_to
}

/// The latest year (1900 to 2100) written in a name as four digits of their own: `parcels_2025` is 2025.
pub fn year_in(name: &str) -> Option<u32> {
    let bytes = name.as_bytes();
    let mut best = None;
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if run == 4 {
            let year: u32 = name[i..i + 4].parse().unwrap_or(0);
            if (1900..=2100).contains(&year) {
                best = best.max(Some(year));
            }
        }
        i += run.max(1);
    }
    best
}

/// Files that fit the parcels best of all roles and whose parcel id can be told.
fn parcel_candidates(survey: &Survey) -> Vec<usize> {
    let parcels = &SIGNALS[0];
    (0..survey.found.len())
        .filter(|&f| {
            let found = &survey.found[f];
            let own = score(found, parcels);
            own >= ENOUGH
                && SIGNALS.iter().all(|s| score(found, s) <= own)
                && super::parcel_values::schema(found).0.is_some()
        })
        .collect()
}

/// Of several parcels layers, the newest: by the year in the name when each has one and one year is the
/// latest, else by modification date. `None` when neither tells them apart.
fn newest(survey: &Survey, candidates: &[usize]) -> Option<(usize, String)> {
    let found = |f: usize| &survey.found[f];
    let years: Option<Vec<u32>> = candidates.iter().map(|&f| year_in(&found(f).words)).collect();
    if let Some(years) = years {
        let latest = *years.iter().max()?;
        if years.iter().filter(|&&y| y == latest).count() == 1 {
            let f = candidates[years.iter().position(|&y| y == latest)?];
            return Some((f, format!("the newest by the year in its name ({latest})")));
        }
    }
    let times: Option<Vec<_>> = candidates.iter().map(|&f| found(f).modified).collect();
    let times = times?;
    let latest = *times.iter().max()?;
    if times.iter().filter(|&&t| t == latest).count() != 1 {
        return None;
    }
    let f = candidates[times.iter().position(|&t| t == latest)?];
    let day = chrono::DateTime::<chrono::Utc>::from(latest).format("%Y-%m-%d");
    Some((f, format!("the newest by modification date ({day})")))
}

/// The parcels layer's ids as the run forms them (its id fields joined with `-`), for finding the id column
/// of record files by contents; empty when they cannot be read.
fn parcel_ids(survey: &Survey, f: usize) -> HashSet<String> {
    let found = &survey.found[f];
    let Some(schema) = super::parcel_values::schema(found).0 else { return HashSet::new() };
    let options = ReadOptions { assume_crs: None, keep: Some(schema.id.clone()) };
    let Ok((layer, _)) = read_layer(&found.path, &options) else { return HashSet::new() };
    let columns: Vec<Option<usize>> = schema.id.iter().map(|name| layer.field_index(name)).collect();
    layer
        .features
        .iter()
        .filter_map(|feature| {
            let parts: Option<Vec<String>> =
                columns.iter().map(|c| c.and_then(|c| feature.values.get(c)?.as_text())).collect();
            parts.map(|p| p.join("-"))
        })
        .collect()
}

/// Decides every role: the newest parcels layer, the record files' id columns by contents, then the matching.
pub fn decide(survey: &mut Survey) {
    let mut set_aside = vec![false; survey.found.len()];
    let candidates = parcel_candidates(survey);
    let mut parcels = candidates.first().copied();
    if candidates.len() > 1 {
        let names: Vec<String> = candidates.iter().map(|&f| survey.found[f].name()).collect();
        match newest(survey, &candidates) {
            Some((f, why)) => {
                parcels = Some(f);
                candidates.iter().filter(|&&c| c != f).for_each(|&c| set_aside[c] = true);
                let all = if names.len() == 2 { "both" } else { "all" };
                survey.notes.push(format!(
                    "{} {all} fit the parcels layer: took {}, {why}; set [layers] parcels to use another",
                    names.join(", "),
                    survey.found[f].name()
                ));
            }
            None => {
                // Neither tells them apart: none is taken, and none plays another role.
                parcels = None;
                candidates.iter().for_each(|&c| set_aside[c] = true);
                survey.undecided.push(tie_message(&names, 0));
            }
        }
    }
    if let Some(f) = parcels {
        let ids = parcel_ids(survey, f);
        for found in &mut survey.found {
            if let Some(table) = &mut found.table {
                table.id = id_column(&found.fields, &table.rows, &ids);
            }
        }
    }
    let weight = |survey: &Survey, s: usize, f: usize| -> i64 {
        let score = score(&survey.found[f], &SIGNALS[s]);
        match score >= ENOUGH && !set_aside[f] {
            true if REQUIRED.contains(&SIGNALS[s].role) => REQUIRED_FIRST + i64::from(score),
            true => i64::from(score),
            false => 0,
        }
    };
    // A column for each file and one "no file" for each role.
    let files = survey.found.len();
    let cost: Vec<Vec<i64>> = (0..SIGNALS.len())
        .map(|s| {
            (0..files + SIGNALS.len()).map(|f| if f < files { -weight(survey, s, f) } else { 0 }).collect()
        })
        .collect();
    let given: Vec<Option<usize>> = best_assignment(&cost)
        .into_iter()
        .enumerate()
        .map(|(s, f)| (f < files && weight(survey, s, f) > 0).then_some(f))
        .collect();
    let mut used = vec![false; files];
    given.iter().flatten().for_each(|&f| used[f] = true);
    let mut tied = vec![false; files];
    let mut chosen = Vec::new();
    for (s, signal) in SIGNALS.iter().enumerate() {
        let Some(f) = given[s] else {
            if s == 0 && candidates.len() > 1 {
                // The tie between parcels layers is said above.
            } else if REQUIRED.contains(&signal.role) {
                survey.missing.push(signal.role);
            } else {
                survey.absent.push(signal.role);
            }
            continue;
        };
        let own = score(&survey.found[f], signal);
        let rivals: Vec<usize> = (0..files)
            .filter(|&g| g != f && !used[g] && !set_aside[g] && score(&survey.found[g], signal) == own)
            .collect();
        if !rivals.is_empty() {
            let names: Vec<String> =
                std::iter::once(f).chain(rivals.iter().copied()).map(|g| survey.found[g].name()).collect();
            std::iter::once(f).chain(rivals).for_each(|g| tied[g] = true);
            survey.undecided.push(tie_message(&names, s));
            continue;
        }
        if survey.found[f].table.is_some() {
            match field_map(&survey.found[f], signal.role) {
                Ok(Some(map)) => survey.record_fields.push(RecordColumns {
                    kind: signal.role,
                    columns: map.into_iter().collect(),
                    why: "found by what the columns hold".to_string(),
                }),
                Ok(None) => {}
                Err(why) => {
                    tied[f] = true;
                    survey.undecided.push(format!(
                        "{} looks like the {} file ({}) but cannot be read as one: {why}",
                        survey.found[f].name(),
                        signal.role,
                        signal.what
                    ));
                    continue;
                }
            }
        }
        chosen.push((signal.role, survey.found[f].path.clone()));
    }
    survey.chosen = chosen;
    for (f, found) in survey.found.iter().enumerate() {
        if !used[f] && !tied[f] && !set_aside[f] {
            survey.undecided.push(format!(
                "{} ({}, {} records) was not given a role; if it is one, set it under [layers]",
                found.name(),
                found.shape.describe(),
                found.records
            ));
        }
    }
}

fn tie_message(names: &[String], s: usize) -> String {
    let signal = &SIGNALS[s];
    format!(
        "{} all look like the {} layer ({}); set [layers] {} = \"FILE\" in county.toml",
        names.join(", "),
        signal.role,
        signal.what,
        signal.role
    )
}

#[cfg(test)]
mod tests;

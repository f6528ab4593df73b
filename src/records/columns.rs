//! Which column of a record file plays which role: named in the config (`[fields.history]
//! inspection_date = "INSPECTED"`, or `--field history.date=INSPECTED`), spelled as lakeshore spells it, or
//! detected from the names county offices use (`SBL`, `SWIS` + `PRINT_KEY`, a column whose name says
//! "date" or "inspected" and whose values are dates, ...).
//!
//! [`resolve`] renames the chosen columns to their role names, so the readers read one spelling, and says what
//! it took. It sees the header and a sample of the first rows ([`SAMPLE_ROWS`]), never the whole file. Columns named in the config or spelled as lakeshore spells them are taken first; detection only
//! looks at the columns left, and only for roles still open.

use std::collections::BTreeMap;
use std::path::Path;

use crate::formats::csv::Record;
use crate::model::error::{Error, Result};
use crate::model::id::ID_FIELDS;
use crate::records::parse_date;

/// Column names by role, from the config file or `--field` flags (role → column).
pub type FieldMap = BTreeMap<String, String>;

/// How a role's column is found when no column has its name.
#[derive(Debug, Clone, Copy)]
pub enum Detect {
    /// Only by its own name.
    Name,
    /// A parcel id: `SBL`, `SWIS_SBL_ID`, `SWIS_PRINT_KEY_ID`, `PARCEL_ID`, ..., or `SWIS` and `PRINT_KEY`
    /// joined as the parcels layer joins them (`SWIS-PRINT_KEY`).
    ParcelId,
    /// A column whose name contains one of these words (tried in order) and whose filled cells are all dates.
    Date(&'static [&'static str]),
    /// A column whose name contains one of these words (tried in order).
    Words(&'static [&'static str]),
}

/// One role a record file's column can play.
#[derive(Debug, Clone, Copy)]
pub struct Role {
    /// The role's name, which is also lakeshore's own spelling of the column (`inspection_date`).
    pub name: &'static str,
    /// Other keys the config and `--field` accept for it (`date`).
    pub aliases: &'static [&'static str],
    /// Whether the file must have it.
    pub required: bool,
    /// How to find it otherwise.
    pub detect: Detect,
}

impl Role {
    /// A role found by its name only.
    pub const fn named(name: &'static str) -> Role {
        Role { name, aliases: &[], required: false, detect: Detect::Name }
    }
}

/// The roles of one kind of record file.
#[derive(Debug, Clone, Copy)]
pub struct Spec<'a> {
    /// What the file is, for messages ("inspections").
    pub what: &'static str,
    /// Its key in `[fields.KEY]` and `--field KEY.role=COLUMN` ("history").
    pub key: &'static str,
    /// The roles, required ones first.
    pub roles: &'a [Role],
}

/// Whether the column `found` is the parcel-id field `name` of [`ID_FIELDS`]: the same as normalised by
/// [`normal`], or its first 10 characters, as a shapefile's dBase table cuts it.
fn names_id_field(found: &str, name: &str) -> bool {
    let found = normal(found);
    found == normal(name) || (name.len() > 10 && found == normal(&name[..10]))
}

/// The columns that only one kind of record file has, by lakeshore's names, and the kind: a file holding one
/// of them is most likely that kind's, whatever the config names it as.
const HALLMARKS: [(&str, &str); 4] = [
    ("inspection_date", "inspections file (history)"),
    ("event", "events file"),
    ("hauler_licence", "pump-outs file"),
    ("fecal_coliform_per_100ml", "samples file"),
];

/// Rows looked at to decide whether a column holds dates.
pub const SAMPLE_ROWS: usize = 1000;

/// Where a column's cells come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// The file's field at this position (0-based).
    Field(usize),
    /// The fields at these positions (`SWIS`, `PRINT_KEY`) joined as the parcels layer joins them
    /// (`SWIS-PRINT_KEY`; blank when either is blank).
    Joined(usize, usize),
}

/// A column name in lower case with every run of other characters than letters and digits made one `_`.
pub(crate) fn normal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// How many of the filled cells of field `field` among the `sample` rows are dates, of how many, and the
/// first that is not.
fn dates_in<'s>(sample: &[&'s Record], field: usize) -> (usize, usize, Option<&'s str>) {
    let filled = sample.iter().filter_map(|r| r.field(field)).map(str::trim).filter(|c| !c.is_empty());
    filled.fold((0, 0, None), |(d, n, bad), c| match parse_date(c) {
        Some(_) => (d + 1, n + 1, bad),
        None => (d, n + 1, bad.or(Some(c))),
    })
}

/// Whether at least three in four of the filled cells of field `field` among the `sample` rows are dates (a
/// typo in one date does not hide the column; the check of each cell reports it).
fn holds_dates(sample: &[&Record], field: usize) -> bool {
    let (dates, all, _) = dates_in(sample, field);
    all > 0 && dates * 4 >= all * 3
}

/// Whether at least half of the filled cells of field `field` among the `sample` rows are dates: a column
/// named like a date with that many is the date column, its bad cells each reported by the reader.
fn holds_some_dates(sample: &[&Record], field: usize) -> bool {
    let (dates, all, _) = dates_in(sample, field);
    all > 0 && dates * 2 >= all
}

/// Words of a column name that say it holds another day of the record than the one a date role wants:
/// "Date Received", "Permit Expires", "Installed".
const OTHER_DAYS: [&str; 9] =
    ["receiv", "expir", "install", "issu", "accept", "permit", "due", "sent", "mail"];

/// Whether a column's name says it holds another day of the record ([`OTHER_DAYS`]).
fn names_another_day(name: &str) -> bool {
    let name = normal(name);
    OTHER_DAYS.iter().any(|w| name.contains(w))
}

/// The guesses of the date roles [`resolve`] detected that a close second could have won: for each, another
/// column left unused, named like the role's date and holding dates, which is a warning naming both and the
/// setting that decides. `columns` are the columns as [`resolve`] named them, `found` the header.
pub fn date_guesses(
    found: &[String],
    sample: &[&Record],
    spec: &Spec<'_>,
    fields: &FieldMap,
    columns: &[(String, Column)],
) -> Vec<String> {
    let mut guesses = Vec::new();
    for role in spec.roles {
        let Detect::Date(words) = role.detect else { continue };
        let taken = columns.iter().position(|(n, _)| n == role.name);
        let Some(taken) = taken.filter(|&i| found.get(i).is_some_and(|f| normal(f) != role.name)) else {
            continue;
        };
        if fields.contains_key(role.name) || role.aliases.iter().any(|a| fields.contains_key(*a)) {
            continue;
        }
        let unused = |i: usize| spec.roles.iter().all(|r| columns[i].0 != r.name);
        let second = (0..found.len()).find(|&i| {
            i != taken
                && unused(i)
                && !names_another_day(&found[i])
                && words.iter().any(|w| normal(&found[i]).contains(w))
                && holds_dates(sample, i)
        });
        if let Some(second) = second {
            guesses.push(format!(
                "columns '{}' and '{}' both look like the {} and hold dates; '{}' was taken: if the other is \
                 meant, name it with --field {}.{}=COLUMN (or [fields.{}] {} = \"COLUMN\")",
                found[taken], found[second], role.name, found[taken], spec.key, role.name, spec.key, role.name
            ));
        }
    }
    guesses
}

/// The column that could have been the parcel id where [`resolve`] detected it among several: another
/// single field named like one of [`ID_FIELDS`], left unused; `None` when the config names the column, the
/// file has a column named `parcel_id`, or no other column is named like an id. Which of the two finds more
/// parcels is counted as the rows are read ([`crate::records::Checker::parcel`]).
pub fn id_second(
    found: &[String],
    spec: &Spec<'_>,
    fields: &FieldMap,
    columns: &[(String, Column)],
) -> Option<usize> {
    let role = spec.roles.iter().find(|r| matches!(r.detect, Detect::ParcelId))?;
    if fields.contains_key(role.name) || role.aliases.iter().any(|a| fields.contains_key(*a)) {
        return None;
    }
    let (_, taken) = columns.iter().find(|(n, _)| n == role.name)?;
    let taken: Vec<usize> = match *taken {
        Column::Field(i) if normal(&found[i]) == role.name => return None,
        Column::Field(i) => vec![i],
        Column::Joined(a, b) => vec![a, b],
    };
    let unused = |i: usize| !taken.contains(&i) && spec.roles.iter().all(|r| columns[i].0 != r.name);
    crate::model::id::whole_id_fields()
        .find_map(|name| (0..found.len()).find(|&i| unused(i) && names_id_field(&found[i], name)))
}

/// How a role's column was found.
enum How {
    Config,
    Name,
    Detected(String),
}

/// Names the columns `found` in the header of `path` (with `sample`, its first rows) that play the roles of
/// `spec` by the roles' names, after the config's `fields`; returns every column by its name so given (a
/// column that has a role's name but plays no role is `NAME (not used)`; a parcel id joined from `SWIS` and
/// `PRINT_KEY` comes last) and a line saying which column was taken for what.
///
/// A required role no column plays is an error listing the columns found and the config key and flag that
/// name one; so is a config key that is no role, or a configured column the file does not have.
pub fn resolve(
    path: &Path,
    found: &[String],
    sample: &[&Record],
    spec: &Spec<'_>,
    fields: &FieldMap,
) -> Result<(Vec<(String, Column)>, String)> {
    let list = || if found.is_empty() { "none".to_string() } else { found.join(", ") };
    let mut taken: Vec<(&Role, usize, How)> = Vec::new();
    let mut used = vec![false; found.len()];
    // The config first, then lakeshore's own spelling.
    for (key, column) in fields {
        if key == crate::records::dates::DATE_ORDER_KEY {
            continue;
        }
        let Some(role) = spec.roles.iter().find(|r| r.name == key || r.aliases.contains(&key.as_str()))
        else {
            let keys: Vec<String> = spec.roles.iter().map(|r| r.name.to_string()).collect();
            let meant = crate::model::diagnose::closest(key, &keys)
                .map_or(String::new(), |m| format!("did you mean {m}? "));
            return Err(Error::Config(format!(
                "[fields.{}] {key}: the {} file has no such column role; {meant}use one of: {}",
                spec.key,
                spec.what,
                keys.join(", ")
            )));
        };
        let Some(i) = found
            .iter()
            .position(|f| f == column)
            .or_else(|| found.iter().position(|f| f.eq_ignore_ascii_case(column)))
        else {
            return Err(Error::format(
                path,
                format!(
                    "no column '{column}' for {}.{key} (set in [fields.{}] or --field); columns found: {}; \
                     correct the name",
                    spec.key,
                    spec.key,
                    list()
                ),
            ));
        };
        used[i] = true;
        taken.push((role, i, How::Config));
    }
    for role in spec.roles {
        if taken.iter().any(|(r, _, _)| r.name == role.name) {
            continue;
        }
        if let Some(i) = (0..found.len()).find(|&i| !used[i] && normal(&found[i]) == role.name) {
            used[i] = true;
            taken.push((role, i, How::Name));
        }
    }
    // Detection among the columns left, for the roles still open.
    let mut combined = None;
    for role in spec.roles {
        if taken.iter().any(|(r, _, _)| r.name == role.name) {
            continue;
        }
        let free = |i: &usize| !used[*i];
        let pick = match role.detect {
            Detect::Name => None,
            // The first group of the parcels' id fields the file has: one column, or SWIS and a key joined.
            Detect::ParcelId => {
                let column =
                    |name: &str| (0..found.len()).filter(free).find(|&i| names_id_field(&found[i], name));
                ID_FIELDS.iter().find_map(|group| match group {
                    // A print key alone (as town logs keep them) finds its parcel by the parcels' print key.
                    [one] if one.starts_with("PRINT") => column(one).map(|i| (i, "a print key".to_string())),
                    [one] => column(one).map(|i| (i, "a parcel-id name".to_string())),
                    [swis, key] => {
                        let (swis, key) = (column(swis)?, column(key)?);
                        combined = Some((swis, key));
                        Some((key, format!("{} and {} joined with '-'", found[swis], found[key])))
                    }
                    _ => None,
                })
            }
            // By each word in turn: a column that holds dates, else one that holds dates in half its cells.
            Detect::Date(words) => words.iter().find_map(|w| {
                let mut named: Vec<usize> =
                    (0..found.len()).filter(free).filter(|&i| normal(&found[i]).contains(w)).collect();
                // A column named for another day of the record ("Date Received") comes after the others.
                named.sort_by_key(|&i| names_another_day(&found[i]));
                let clean = named.iter().find(|&&i| holds_dates(sample, i));
                let said = |why: &str| format!("its name says '{w}' and {why}");
                clean.map(|&i| (i, said("it holds dates"))).or_else(|| {
                    let some = named.iter().find(|&&i| holds_some_dates(sample, i))?;
                    Some((*some, said("most of its cells are dates")))
                })
            }),
            Detect::Words(words) => words.iter().find_map(|w| {
                (0..found.len())
                    .filter(free)
                    .find(|&i| normal(&found[i]).contains(w))
                    .map(|i| (i, format!("its name says '{w}'")))
            }),
        };
        match pick {
            Some((i, why)) => {
                used[i] = true;
                taken.push((role, i, How::Detected(why)));
            }
            None if role.required => {
                return Err(missing(path, spec, role, &list(), &date_like(found, sample, role)))
            }
            None => {}
        }
    }
    // A required role only guessed at, in a file with another kind's own column: the file is most likely that
    // kind's, given in the wrong place (the events file as the inspection history), and its dates would be
    // read as this kind's.
    let guessed = taken.iter().find(|(r, _, how)| r.required && matches!(how, How::Detected(_)));
    if let Some(&(role, i, _)) = guessed {
        let other = HALLMARKS.iter().find(|(name, _)| {
            spec.roles.iter().all(|r| r.name != *name) && found.iter().any(|f| normal(f) == *name)
        });
        if let Some((name, kind)) = other {
            return Err(Error::format(
                path,
                format!(
                    "given as the {} file, but it has the column '{name}' of the {kind} and no {} column (it would \
                     be read from '{}'): is it the {kind}? Name the right file in [layers] {}, or name the \
                     column with [fields.{}] {} = \"COLUMN\"",
                    spec.what, role.name, found[i], spec.key, spec.key, role.name
                ),
            ));
        }
    }
    // A role read from one of two columns of one name: which the file means cannot be told, and the first
    // is not more likely than the second.
    for &(role, i, _) in &taken {
        if let Some(j) = (0..found.len()).find(|&j| j != i && normal(&found[j]) == normal(&found[i])) {
            return Err(Error::format(
                path,
                format!(
                    "columns {} and {} are both named '{}' (or so alike), and the {} would be read from one of \
                     them: rename or remove the other, so that the file says which holds it",
                    i.min(j) + 1,
                    i.max(j) + 1,
                    found[i],
                    role.name
                ),
            ));
        }
    }
    // A column that has a role's name but plays no role steps aside.
    let mut names: Vec<String> = found.to_vec();
    for (i, name) in names.iter_mut().enumerate() {
        if !used[i] && spec.roles.iter().any(|r| r.name == name.as_str()) {
            *name = format!("{name} (not used)");
        }
    }
    let mut joined = None;
    let mut said = Vec::new();
    for &(role, i, ref how) in &taken {
        match (combined, role.detect) {
            (Some((swis, key)), Detect::ParcelId) if i == key => {
                joined = Some((role.name.to_string(), Column::Joined(swis, key)));
            }
            _ => names[i] = role.name.to_string(),
        }
        let column = &found[i];
        said.push(match how {
            How::Config => format!("{} = {column} (from the config)", role.name),
            How::Name if column == role.name => role.name.to_string(),
            How::Name => format!("{} = {column}", role.name),
            How::Detected(why) => format!("{} = {column} (detected: {why})", role.name),
        });
    }
    let columns = names.into_iter().enumerate().map(|(i, n)| (n, Column::Field(i))).chain(joined).collect();
    Ok((columns, format!("{} columns: {}", spec.what, said.join(", "))))
}

/// For a date role, what the columns named like a date hold that is not a date: `'Visited' holds 3 dates
/// in 10 cells (not '04.03.2026')`, for the error of [`missing`].
fn date_like(found: &[String], sample: &[&Record], role: &Role) -> String {
    let Detect::Date(words) = role.detect else { return String::new() };
    let said: Vec<String> = (0..found.len())
        .filter(|&i| words.iter().any(|w| normal(&found[i]).contains(w)))
        .filter_map(|i| {
            let (dates, all, bad) = dates_in(sample, i);
            let bad = bad?;
            Some(format!("'{}' holds {dates} dates in its first {all} filled cells (not '{bad}')", found[i]))
        })
        .collect();
    match said.is_empty() {
        true => String::new(),
        false => format!("; {}: write its dates as YYYY-MM-DD or M/D/YYYY", said.join(", ")),
    }
}

/// The error for a required role no column plays; `more` says what the columns that came near hold.
fn missing(path: &Path, spec: &Spec<'_>, role: &Role, found: &str, more: &str) -> Error {
    let hint = match role.detect {
        Detect::Name => String::new(),
        Detect::ParcelId => {
            " (looked for parcel_id, SBL, SWIS_SBL_ID, SWIS_PRINT_KEY_ID, PARCEL_ID, SWIS + PRINT_KEY, PRINT_KEY)"
                .into()
        }
        Detect::Date(words) => {
            format!(" (looked for a column whose name says {} and that holds dates)", words.join("/"))
        }
        Detect::Words(words) => format!(" (looked for a column whose name says {})", words.join("/")),
    };
    Error::format(
        path,
        format!(
            "no '{}' column{hint}; columns found: {found}{more}; name it in the config file under [fields.{}] \
             as {} = \"COLUMN\", or with --field {}.{}=COLUMN",
            role.name, spec.key, role.name, spec.key, role.name
        ),
    )
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod guesses;

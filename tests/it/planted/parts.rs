//! A parcel handed over as a MultiPolygon with an empty part (as some exports write a deleted ring): the
//! empty part is dropped with a note, as GDAL and shapely read it, and the parcel keeps its other parts, so
//! the schedule is the corrected county's.

use geo::{Geometry, LineString, MultiPolygon, Polygon};

use super::{keep, write_features, Mistake};

/// The mistakes of geometry parts.
pub(super) const MISTAKES: &[Mistake] = &[Mistake {
    name: "parcels with an empty MultiPolygon part",
    plant: |c, _| {
        let parcels = c.read("parcels")?;
        let mut features = Vec::new();
        for (k, f) in parcels.features.iter().enumerate() {
            let mut props = super::properties(&parcels, f);
            keep(k, &mut props);
            let geometry = f.geometry.clone().ok().map(|g| match (k, g) {
                // The first parcel gains an empty part after its own.
                (0, Geometry::Polygon(p)) => {
                    let empty = Polygon::new(LineString(Vec::new()), Vec::new());
                    Geometry::MultiPolygon(MultiPolygon(vec![p, empty]))
                }
                (0, Geometry::MultiPolygon(mut m)) => {
                    m.0.push(Polygon::new(LineString(Vec::new()), Vec::new()));
                    Geometry::MultiPolygon(m)
                }
                (_, g) => g,
            });
            features.push((geometry, props));
        }
        write_features(c, "parcels_parts.geojson", &parcels.crs, features)?;
        c.set_layer("parcels", "parcels_parts.geojson");
        super::correct()
    },
}];

/// The note names the parcels file, the record and what was dropped; the run is not stopped.
#[test]
fn an_empty_part_is_dropped_with_a_note() {
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let mut county = super::County::copy_of(&config, "empty-part");
    (MISTAKES[0].plant)(&mut county, &Default::default()).expect("planted");
    let run = county.run("schedule", "2027-01-15", &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let problems = std::fs::read_to_string(run.out.join("problems.csv")).expect("problems.csv");
    let line = problems.lines().find(|l| l.contains("empty part")).unwrap_or_else(|| panic!("{problems}"));
    assert!(line.contains("parcels_parts.geojson") && line.contains("record 1"), "{line}");
    assert!(line.contains("other parts are kept"), "{line}");
}

/// `digits` as an Excel number cell keeps them: leading zeros gone, 15 significant digits rounded half up,
/// the rest zeros; in scientific notation (`5.46891E+24`) when `scientific`.
fn excel_number(digits: &str, scientific: bool) -> String {
    let digits = digits.trim_start_matches('0');
    let mut kept: Vec<u8> = digits.bytes().take(15).map(|b| b - b'0').collect();
    if digits.as_bytes().get(15).is_some_and(|&b| b >= b'5') {
        let mut i = kept.len();
        while i > 0 {
            i -= 1;
            kept[i] += 1;
            if kept[i] < 10 {
                break;
            }
            kept[i] = 0;
        }
    }
    let text: String = kept.iter().map(|d| char::from(b'0' + d)).collect();
    if scientific {
        let mantissa = text[1..6].trim_end_matches('0');
        let dot = if mantissa.is_empty() { "" } else { "." };
        format!("{}{dot}{mantissa}E+{}", &text[..1], digits.len() - 1)
    } else {
        format!("{text}{}", "0".repeat(digits.len().saturating_sub(15)))
    }
}

/// The inspection log keyed by SWIS + SBL (26 digits), as a spreadsheet's number cells round them.
fn rounded_log(
    c: &mut super::County,
    ids: &std::collections::BTreeSet<String>,
    scientific: bool,
) -> Option<()> {
    let parcels = c.read("parcels")?;
    let field = |name: &str| parcels.field_index(name);
    let (swis, key, sbl) = (field("SWIS")?, field("PRINT_KEY")?, field("SBL")?);
    let text = |f: &lakeshore::crs::layer::Feature, i: usize| f.values[i].as_text().unwrap_or_default();
    let numbers: std::collections::BTreeMap<String, String> = parcels
        .features
        .iter()
        .map(|f| {
            (format!("{}-{}", text(f, swis), text(f, key)), format!("{}{}", text(f, swis), text(f, sbl)))
        })
        .collect();
    let round = |rows: &mut Vec<Vec<String>>, col: usize| {
        for id in rows.iter_mut().skip(1).filter_map(|row| row.get_mut(col)) {
            if let Some(number) = numbers.get(id.as_str()).filter(|n| n.len() > 20) {
                *id = excel_number(number, scientific);
            }
        }
    };
    super::rewrite_csv(c, "history", ids, round, ',')
}

/// Ids Excel rounded: the mistakes.
pub(super) const ROUNDED: &[Mistake] = &[
    Mistake {
        name: "inspection log keyed by SWIS + SBL Excel rounded",
        plant: |c, ids| {
            rounded_log(c, ids, false)?;
            super::stop_or_correct(&["as text"])
        },
    },
    Mistake {
        name: "inspection log keyed by SWIS + SBL in scientific notation",
        plant: |c, ids| {
            rounded_log(c, ids, true)?;
            super::stop_or_correct(&["as text"])
        },
    },
];

#[test]
fn excel_keeps_fifteen_digits() {
    // 05468912800500010001000000: SWIS 054689, SBL 12800500010001000000.
    assert_eq!(excel_number("05468912800500010001000000", false), "5468912800500010000000000");
    assert_eq!(excel_number("05468912800500010001000000", true), "5.46891E+24");
    assert_eq!(excel_number("19999999999999995", false), "20000000000000000");
}

//! CRS names to EPSG codes: a `.prj` often names its CRS (`NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet`,
//! `GCS_WGS_1984`) without an authority code, and the name, respelled as the EPSG table spells it, finds
//! candidate codes in the built-in table. Names are only a hint: the caller keeps a code only when the CRS it
//! names puts test points where the WKT's own parameters do.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::wkt::norm;

/// Candidate EPSG codes for a CRS name, best first: the name itself as the EPSG table spells it, then the
/// EPSG spelling of an ESRI name (`NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet` →
/// `NAD83 / New York Central (ftUS)`).
///
/// The caller must check that the code describes the same CRS: names are only a hint.
pub(crate) fn esri_name_to_epsg(name: &str) -> Vec<u32> {
    let index = name_index();
    let mut found = Vec::new();
    let add_code = |found: &mut Vec<u32>, c: u32| {
        if !found.contains(&c) {
            found.push(c);
        }
    };
    let key = norm(name);
    if let Some(code) = ESRI_ALIASES.iter().find(|(n, _)| norm(n) == key).map(|(_, c)| *c) {
        add_code(&mut found, code);
    }
    for key in [key, norm(&esri_to_epsg_spelling(name))] {
        for c in index.get(&key).into_iter().flatten() {
            add_code(&mut found, *c);
        }
    }
    found
}

/// Names ArcGIS writes that no rewriting rule turns into the EPSG name.
const ESRI_ALIASES: &[(&str, u32)] = &[
    ("GCS_WGS_1984", 4326),
    ("GCS_North_American_1983", 4269),
    ("GCS_North_American_1983_HARN", 4152),
    ("GCS_NAD_1983_2011", 6318),
    ("GCS_North_American_1927", 4267),
    ("WGS_1984_Web_Mercator_Auxiliary_Sphere", 3857),
    ("WGS_1984_Web_Mercator", 3857),
    ("NAD_1983_Contiguous_USA_Albers", 5070),
];

/// Rewrites an ESRI projected CRS name in the EPSG table's spelling.
fn esri_to_epsg_spelling(name: &str) -> String {
    let mut s = name.to_string();
    for (esri, epsg) in [
        ("NAD_1983_2011_", "NAD83(2011) / "),
        ("NAD_1983_HARN_", "NAD83(HARN) / "),
        ("NAD_1983_NSRS2007_", "NAD83(NSRS2007) / "),
        ("NAD_1983_CORS96_", "NAD83(CORS96) / "),
        ("NAD_1983_", "NAD83 / "),
        ("NAD_1927_", "NAD27 / "),
        ("WGS_1984_", "WGS 84 / "),
    ] {
        if let Some(rest) = s.strip_prefix(esri) {
            s = format!("{epsg}{rest}");
            break;
        }
    }
    s = s.replace("StatePlane_", "");
    // Drop the FIPS zone number: "..._Central_FIPS_3102_Feet" → "..._Central_Feet".
    if let Some(i) = s.find("_FIPS_") {
        let tail = &s[i + 6..];
        let digits = tail.chars().take_while(|c| c.is_ascii_digit()).count();
        s = format!("{}{}", &s[..i], &tail[digits..]);
    }
    if let Some(stem) = s.strip_suffix("_Feet_Intl") {
        s = format!("{stem} (ft)");
    } else if let Some(stem) = s.strip_suffix("_Feet") {
        s = format!("{stem} (ftUS)");
    }
    s.replace("UTM_Zone_", "UTM zone ").replace('_', " ")
}

/// The name in the built-in EPSG table's WKT of `code`.
pub(super) fn epsg_name(code: u32) -> Option<&'static str> {
    super::epsg::from_code(code)?.name()
}

/// Normalised CRS name → EPSG codes, from the names in the built-in EPSG table's WKT.
fn name_index() -> &'static HashMap<String, Vec<u32>> {
    static INDEX: OnceLock<HashMap<String, Vec<u32>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: HashMap<String, Vec<u32>> = HashMap::new();
        for (code, def) in super::epsg::all() {
            if let Some(name) = def.name() {
                index.entry(norm(name)).or_default().push(code);
            }
        }
        index
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esri_names_are_respelled_as_epsg_names() {
        assert_eq!(
            esri_to_epsg_spelling("NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet"),
            "NAD83 / New York Central (ftUS)"
        );
        assert_eq!(esri_to_epsg_spelling("NAD_1983_UTM_Zone_18N"), "NAD83 / UTM zone 18N");
        assert_eq!(esri_name_to_epsg("NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet"), vec![2261]);
        assert_eq!(esri_name_to_epsg("NAD_1983_UTM_Zone_18N"), vec![26918]);
        assert_eq!(esri_name_to_epsg("WGS_1984_UTM_Zone_18N"), vec![32618]);
        assert_eq!(esri_name_to_epsg("GCS_WGS_1984"), vec![4326]);
        assert!(esri_name_to_epsg("My_Local_Grid").is_empty());
    }
}

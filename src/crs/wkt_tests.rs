//! Tests of the WKT parser and its translation to PROJ strings.

use super::*;

#[test]
fn parses_nested_nodes_words_and_escaped_quotes() {
    let w =
        Wkt::parse(r#" GEOGCRS["a ""b""",CS(ellipsoidal,2),AXIS["lat",north],ID["EPSG",4326]] "#).unwrap();
    assert_eq!(w.keyword, "GEOGCRS");
    assert_eq!(w.name(), Some("a \"b\""));
    assert_eq!(w.epsg_code(), Some(4326));
    assert!(
        matches!(&w.args[1], Arg::Node(n) if n.keyword == "CS" && n.args[0] == Arg::Word("ellipsoidal".into()))
    );
}

#[test]
fn rejects_malformed_wkt_without_panicking() {
    for bad in
        ["", "PROJCS", "PROJCS[", "PROJCS[\"x\",", "PROJCS[\"x\"]]", "PROJCS[1e999x]", "X[\"unterminated]"]
    {
        assert!(Wkt::parse(bad).is_err(), "{bad}");
    }
    let deep = "A[".repeat(10_000);
    assert!(Wkt::parse(&deep).is_err());
}

#[test]
fn translates_esri_transverse_mercator_in_us_feet() {
    let w = Wkt::parse(concat!(
        r#"PROJCS["custom",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983","#,
        r#"SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],"#,
        r#"PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",820208.3333333333],"#,
        r#"PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-76.58333333333333],"#,
        r#"PARAMETER["Scale_Factor",0.9999375],PARAMETER["Latitude_Of_Origin",40.0],UNIT["Foot_US",0.3048006096012192]]"#
    ))
    .unwrap();
    let p = w.to_proj().unwrap();
    assert!(
        p.starts_with("+proj=tmerc +lat_0=40 +lon_0=-76.58333333333333 +k_0=0.9999375 +x_0=250000"),
        "{p}"
    );
    assert!(p.ends_with("+datum=NAD83 +units=us-ft +no_defs"), "{p}");
}

#[test]
fn unknown_methods_and_parameters_are_errors_not_guesses() {
    let w = Wkt::parse(r#"PROJCS["x",GEOGCS["g",DATUM["D_WGS_1984",SPHEROID["s",6378137,298.257223563]]],PROJECTION["Krovak"],UNIT["m",1]]"#).unwrap();
    assert!(w.to_proj().unwrap_err().contains("Krovak"));
    let w = Wkt::parse(r#"PROJCS["x",GEOGCS["g",DATUM["D_WGS_1984",SPHEROID["s",6378137,298.257223563]]],PROJECTION["Transverse_Mercator"],PARAMETER["Azimuth",3],UNIT["m",1]]"#).unwrap();
    assert!(w.to_proj().unwrap_err().contains("Azimuth"));
}

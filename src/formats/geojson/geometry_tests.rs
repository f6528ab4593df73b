//! Tests of the geometry reader: shapes worked out by hand, the rules a geometry may break, and random
//! geometries read both here and by the `geojson` crate, whose reading this one keeps.

use geo::{line_string, point, polygon};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// The geometry in `text`, which must be JSON and nothing more.
fn geometry(text: &str) -> Result<Geometry<f64>, Bad> {
    let mut cur = Cursor::new(text.as_bytes(), 0, 0);
    let geometry = read(&mut cur, &mut Vec::new()).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    cur.end("trailing characters").unwrap();
    geometry
}

fn unreadable(text: &str) -> String {
    match geometry(text) {
        Err(Bad::Unreadable(why)) => why,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn shapes_are_read_into_geo_types() {
    assert_eq!(
        geometry(r#"{"type": "Point", "coordinates": [1.5, -2, 99]}"#),
        Ok(point!(x: 1.5, y: -2.0).into())
    );
    // The type may come last, as in files written with sorted keys.
    assert_eq!(
        geometry(r#"{"coordinates": [[0, 0], [1, 0], [1, 1]], "type": "LineString"}"#),
        Ok(line_string![(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0)].into())
    );
    // An open ring is closed.
    assert_eq!(
        geometry(r#"{"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3]]]}"#),
        Ok(polygon![(x: 0.0, y: 0.0), (x: 4.0, y: 0.0), (x: 4.0, y: 3.0), (x: 0.0, y: 0.0)].into())
    );
    let holed = polygon!(
        exterior: [(x: 0.0, y: 0.0), (x: 10.0, y: 0.0), (x: 10.0, y: 10.0), (x: 0.0, y: 10.0), (x: 0.0, y: 0.0)],
        interiors: [[(x: 2.0, y: 2.0), (x: 3.0, y: 2.0), (x: 3.0, y: 3.0), (x: 2.0, y: 2.0)]],
    );
    let text = r#"{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
        [[2, 2], [3, 2], [3, 3], [2, 2]]]}"#;
    assert_eq!(geometry(text), Ok(holed.clone().into()));
    let text = r#"{"type": "MultiPolygon", "bbox": [0, 0, 21, 10], "coordinates": [
        [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[2, 2], [3, 2], [3, 3], [2, 2]]],
        [[[20, 0], [21, 0], [21, 1], [20, 0]]]]}"#;
    let second = polygon![(x: 20.0, y: 0.0), (x: 21.0, y: 0.0), (x: 21.0, y: 1.0), (x: 20.0, y: 0.0)];
    assert_eq!(geometry(text), Ok(MultiPolygon(vec![holed, second]).into()));
    assert_eq!(
        geometry(r#"{"type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]}"#),
        Ok(MultiPoint(vec![point!(x: 1.0, y: 2.0), point!(x: 3.0, y: 4.0)]).into())
    );
    assert_eq!(
        geometry(r#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3, 3]]]}"#),
        Ok(MultiLineString(vec![
            line_string![(x: 0.0, y: 0.0), (x: 1.0, y: 1.0)],
            line_string![(x: 2.0, y: 2.0), (x: 3.0, y: 3.0)]
        ])
        .into())
    );
    let text = r#"{"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [1, 2]},
        {"type": "LineString", "coordinates": [[0, 0], [1, 1]], "id": 7}], "properties": {"x": [1, {"y": null}]}}"#;
    let parts = vec![point!(x: 1.0, y: 2.0).into(), line_string![(x: 0.0, y: 0.0), (x: 1.0, y: 1.0)].into()];
    assert_eq!(geometry(text), Ok(Geometry::GeometryCollection(GeometryCollection(parts))));
}

#[test]
fn empty_and_null_geometries() {
    assert_eq!(geometry("null"), Err(Bad::Missing));
    // `[]` is an empty list at any level: an empty shape (the reader's check then calls it empty).
    let empty = Polygon::new(LineString(vec![]), vec![]);
    assert_eq!(geometry(r#"{"type": "Polygon", "coordinates": []}"#), Ok(empty.clone().into()));
    assert_eq!(geometry(r#"{"type": "Polygon", "coordinates": [[]]}"#), Ok(empty.into()));
    assert_eq!(geometry(r#"{"type": "MultiPolygon", "coordinates": []}"#), Ok(MultiPolygon(vec![]).into()));
    assert_eq!(geometry(r#"{"type": "LineString", "coordinates": []}"#), Ok(LineString(vec![]).into()));
}

#[test]
fn geometries_that_break_a_rule_are_unreadable() {
    let cases = [
        (r#"{"type": "Circle", "coordinates": [0, 0]}"#, r#"unknown geometry type "Circle""#),
        (r#"{"coordinates": [0, 0]}"#, "missing member `type`"),
        (r#"{"type": 7, "coordinates": [0, 0]}"#, "the geometry type is not a string"),
        (r#"{"type": "Point", "type": "Point", "coordinates": [0, 0]}"#, "duplicate member `type`"),
        (r#"{"type": "Point", "coordinates": [0]}"#, "a Point position needs at least 2 numbers, not 1"),
        (r#"{"type": "Point", "coordinates": []}"#, "a Point position needs at least 2 numbers"),
        (r#"{"type": "Point", "coordinates": [0, "1"]}"#, "a position must be an array of numbers"),
        (r#"{"type": "Point", "coordinates": "0 1"}"#, "coordinates must be an array"),
        (
            r#"{"type": "Polygon", "coordinates": [[0, 0], [1, 1]]}"#,
            "a Polygon whose coordinates are nested 1 deep",
        ),
        (
            r#"{"type": "Polygon", "coordinates": [[[[0, 0]]]]}"#,
            "a Polygon whose coordinates are nested 3 deep",
        ),
        (r#"{"type": "MultiPolygon", "coordinates": [[[[[0, 0]]]]]}"#, "coordinates nested too deep"),
        (r#"{"type": "Polygon"}"#, "a Polygon without coordinates"),
        (r#"{"type": "Polygon", "coordinates": null}"#, "a Polygon without coordinates"),
        (
            r#"{"type": "LineString", "coordinates": [[0, 0], [1, [2]]]}"#,
            "a position must be an array of numbers",
        ),
        (r#"{"type": "LineString", "coordinates": [[0, 0], 5]}"#, "a position must be an array of numbers"),
        (
            r#"{"type": "LineString", "coordinates": [true]}"#,
            "coordinates hold something other than numbers and arrays",
        ),
        (r#"{"type": "GeometryCollection"}"#, "a GeometryCollection without geometries"),
        (r#"{"type": "GeometryCollection", "geometries": [null]}"#, "a geometry must be a JSON object"),
        (r#"{"type": "GeometryCollection", "geometries": {}}"#, "geometries must be an array"),
        (
            r#"{"type": "Point", "coordinates": [0, 0], "bbox": [0, "x"]}"#,
            "the bbox must be an array of numbers",
        ),
        (r#"{"type": "Point", "coordinates": [0, 0], "bbox": 4}"#, "the bbox must be an array of numbers"),
        (r#"{"type": "Point", "coordinates": [0, 0], "geometries": []}"#, "a Point with a geometries member"),
        (r#""Point""#, "a geometry must be a JSON object"),
    ];
    for (text, why) in cases {
        assert_eq!(unreadable(text), why, "{text}");
    }
}

#[test]
fn a_short_position_is_its_own_fault_after_the_rules() {
    assert_eq!(geometry(r#"{"type": "LineString", "coordinates": [[0, 0], [1]]}"#), Err(Bad::ShortPosition));
    assert_eq!(geometry(r#"{"type": "MultiPoint", "coordinates": [[0, 0], []]}"#), Err(Bad::ShortPosition));
    let text = r#"{"type": "GeometryCollection", "geometries": [
        {"type": "LineString", "coordinates": [[0, 0], [1]]}, {"type": "Circle"}]}"#;
    assert_eq!(unreadable(text), r#"unknown geometry type "Circle""#);
}

#[test]
fn a_broken_geometry_is_still_read_to_its_end() {
    // The rule is broken at the type, but the JSON after it must still be JSON.
    let mut cur = Cursor::new(br#"{"type": "Circle", "coordinates": [0, 0,]}"#, 0, 0);
    let e = read(&mut cur, &mut Vec::new()).unwrap_err();
    assert_eq!((e.at, e.what.as_ref()), (40, "trailing comma"));
    let mut cur = Cursor::new(br#"{"type": "Point", "coordinates": [0, 1e999]} "#, 0, 0);
    assert_eq!(read(&mut cur, &mut Vec::new()).unwrap_err().what, "number out of range");
}

/// The `geojson` crate's reading of a geometry, as the reader did it before: `Missing`, `Unreadable` (with
/// the crate's words), `ShortPosition`, or the shape.
fn geojson_crate(text: &str) -> Result<Geometry<f64>, Bad> {
    use ::geojson::GeometryValue as G;
    fn has_xy(value: &G) -> bool {
        let all = |positions: &[::geojson::Position]| positions.iter().all(|p| p.len() >= 2);
        match value {
            G::Point { coordinates } => coordinates.len() >= 2,
            G::MultiPoint { coordinates } | G::LineString { coordinates } => all(coordinates),
            G::MultiLineString { coordinates } | G::Polygon { coordinates } => {
                coordinates.iter().all(|l| all(l))
            }
            G::MultiPolygon { coordinates } => coordinates.iter().flatten().all(|l| all(l)),
            G::GeometryCollection { geometries } => geometries.iter().all(|g| has_xy(&g.value)),
        }
    }
    if text == "null" {
        return Err(Bad::Missing);
    }
    let geometry: ::geojson::Geometry =
        serde_json::from_str(text).map_err(|e| Bad::Unreadable(e.to_string()))?;
    if !has_xy(&geometry.value) {
        return Err(Bad::ShortPosition);
    }
    Geometry::try_from(&geometry.value).map_err(|e| Bad::Unreadable(e.to_string()))
}

/// A random geometry object, right or wrong in any of the ways a file can be.
fn random_geometry(rng: &mut ChaCha8Rng, depth: usize) -> String {
    const KINDS: [&str; 9] = [
        "Point",
        "LineString",
        "Polygon",
        "MultiPoint",
        "MultiLineString",
        "MultiPolygon",
        "GeometryCollection",
        "Circle",
        "polygon",
    ];
    let mut members = Vec::new();
    if rng.random_bool(0.95) {
        let kind = KINDS[rng.random_range(0..KINDS.len())];
        members.push(format!(r#""type": "{kind}""#));
    }
    match rng.random_range(0..10) {
        0 => {}
        1 => members.push(r#""coordinates": null"#.into()),
        _ => {
            let depth = rng.random_range(0..5);
            members.push(format!(r#""coordinates": {}"#, random_coords(rng, depth)));
        }
    }
    if depth < 2 && rng.random_bool(0.2) {
        let parts: Vec<String> = (0..rng.random_range(0..3))
            .map(|_| if rng.random_bool(0.1) { "null".into() } else { random_geometry(rng, depth + 1) })
            .collect();
        members.push(format!(r#""geometries": [{}]"#, parts.join(", ")));
    }
    if rng.random_bool(0.1) {
        members.push(if rng.random_bool(0.8) {
            r#""bbox": [0, 1.5, 2, 3]"#.into()
        } else {
            r#""bbox": [[0]]"#.into()
        });
    }
    if rng.random_bool(0.1) {
        members.push(r#""id": {"a": [1, "b"]}"#.into());
    }
    // Members in any order.
    for i in (1..members.len()).rev() {
        members.swap(i, rng.random_range(0..=i));
    }
    format!("{{{}}}", members.join(", "))
}

/// Random `coordinates` nested `depth` deep, with now and then a short, empty or wrong element.
fn random_coords(rng: &mut ChaCha8Rng, depth: usize) -> String {
    if depth == 0 {
        let count = [2, 2, 2, 3, 1, 0][rng.random_range(0..6)];
        let numbers: Vec<String> = (0..count).map(|_| number(rng)).collect();
        return if rng.random_bool(0.02) { r#""7""#.into() } else { format!("[{}]", numbers.join(", ")) };
    }
    let len = rng.random_range(0..5);
    let parts: Vec<String> = (0..len)
        .map(|_| {
            let d = if rng.random_bool(0.05) { depth.saturating_sub(1) } else { depth - 1 };
            random_coords(rng, d)
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A number of at most 15 significant digits, which serde_json (the `geojson` crate's parser) rounds
/// correctly too.
fn number(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..4) {
        0 => rng.random_range(-180..=180).to_string(),
        1 => format!("{:.6}", rng.random_range(-180.0..180.0)),
        2 => format!("{:.9}", rng.random_range(0.0..1_000_000.0)),
        _ => format!("{}e{}", rng.random_range(1..1000), rng.random_range(-5..5)),
    }
}

#[test]
fn random_geometries_read_as_the_geojson_crate_reads_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(2261);
    let mut tally = [0; 4];
    for _ in 0..20_000 {
        let text = random_geometry(&mut rng, 0);
        let ours = geometry(&text);
        let theirs = geojson_crate(&text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{text}");
                tally[0] += 1;
            }
            (Err(Bad::Unreadable(_)), Err(Bad::Unreadable(_))) => tally[1] += 1,
            (Err(a), Err(b)) if a == b => tally[2] += 1,
            _ => panic!("{text}\nours: {ours:?}\ngeojson: {theirs:?}"),
        }
        tally[3] += 1;
    }
    // The random geometries reach every outcome often.
    assert!(tally[..3].iter().all(|&n| n > 500), "{tally:?}");
}

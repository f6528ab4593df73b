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

//! Planted mistakes in the reference layers: layers that load and meet the parcels but cannot do their job
//! for the rule set — a shoreline whose features carry no name or name no water body of the rule set, a
//! watershed cut through its lake, a watershed handed over as HUC-12 pieces, a floodplain without base flood
//! elevations, a towns layer naming another county's towns. Each is planted through the layers' contents, so
//! the suite runs on any county.

use geo::{BooleanOps, BoundingRect, Centroid, Contains, Geometry, MultiPolygon, Rect};
use lakeshore::crs::layer::Layer;
use serde_json::{json, Map};

use super::{correct, stop_or_correct, unchanged, write_geojson, County, Judge, Mistake, Planted};
use super::{write_features, Coordinates};

/// The shoreline's water-body name field, as a county names it.
const NAMES: &[&str] = &["NAME", "WATERBODY", "GNIS_NAME", "LAKE_NAME", "NAMELSAD"];

/// The area of a feature's geometry as a multipolygon (none for points and lines).
fn areas(g: &Geometry<f64>) -> Option<MultiPolygon<f64>> {
    match g {
        Geometry::Polygon(p) => Some(MultiPolygon(vec![p.clone()])),
        Geometry::MultiPolygon(m) => Some(m.clone()),
        _ => None,
    }
}

/// The first shoreline feature's shape, in the shoreline's CRS, with its water body's name.
fn first_lake(county: &County) -> Option<(Geometry<f64>, String)> {
    let shore = county.read("shoreline")?;
    let field = NAMES.iter().find_map(|n| shore.field_index(n))?;
    shore.features.iter().find_map(|f| Some((f.geometry.clone().ok()?, f.values[field].as_text()?)))
}

/// The index of the watershed feature holding the centroid of the county's first lake, with the layer read.
/// The lake is reprojected into the watershed layer's CRS first.
fn lake_watershed(county: &County) -> Option<(Layer, usize, Rect<f64>)> {
    let (lake, _) = first_lake(county)?;
    let shore = county.read("shoreline")?;
    let sheds = county.read("watershed")?;
    let to = lakeshore::crs::Reprojector::new(&shore.crs, &sheds.crs).ok()?;
    let lake = to.transform(&lake).ok()?;
    let centre = lake.centroid()?;
    let k = sheds
        .features
        .iter()
        .position(|f| f.geometry.as_ref().ok().and_then(areas).is_some_and(|a| a.contains(&centre)))?;
    Some((sheds, k, lake.bounding_rect()?))
}

/// `shape` cut by the horizontal band `y0..y1` (wider than the shape sideways).
fn band(shape: &MultiPolygon<f64>, y0: f64, y1: f64) -> MultiPolygon<f64> {
    let outer = shape.bounding_rect().expect("a shape with area");
    let w = outer.width().max(outer.height());
    let rect = Rect::new((outer.min().x - w, y0), (outer.max().x + w, y1)).to_polygon();
    shape.intersection(&MultiPolygon(vec![rect]))
}

/// The watershed layer with the feature of the first lake's watershed replaced by `pieces` (each with its
/// own name, or the feature's without one), written as `file` and put in the config. Returns the pieces'
/// names.
fn replace_watershed(
    county: &mut County,
    file: &str,
    pieces: impl Fn(&MultiPolygon<f64>, &Rect<f64>) -> Vec<(MultiPolygon<f64>, Option<String>)>,
) -> Option<Vec<String>> {
    let (sheds, k, lake) = lake_watershed(county)?;
    let name = NAMES.iter().find_map(|n| sheds.field_index(n)).map(|i| sheds.fields[i].clone())?;
    let shape = sheds.features[k].geometry.as_ref().ok().and_then(areas)?;
    let mut features = Vec::new();
    let mut names = Vec::new();
    for (i, f) in sheds.features.iter().enumerate() {
        let props = super::properties(&sheds, f);
        if i != k {
            features.push((f.geometry.clone().ok(), props));
            continue;
        }
        for (piece, label) in pieces(&shape, &lake) {
            let mut props = props.clone();
            if let Some(label) = label {
                props.insert(name.clone(), json!(label));
                props.insert("HUC12".into(), json!(format!("0414020{}", 10_000 + names.len())));
                names.push(label);
            }
            features.push((Some(Geometry::MultiPolygon(piece)), props));
        }
    }
    write_features(county, file, &sheds.crs, features)?;
    county.set_layer("watershed", file);
    Some(names)
}

/// The watershed's HUC-12 pieces: three bands, the middle one across the lake's middle, none named as the
/// water body.
fn huc12(shape: &MultiPolygon<f64>, lake: &Rect<f64>) -> Vec<(MultiPolygon<f64>, Option<String>)> {
    let outer = shape.bounding_rect().expect("a shape with area");
    let (low, high) = (lake.min().y + lake.height() / 3.0, lake.min().y + 2.0 * lake.height() / 3.0);
    [
        (outer.min().y - 1.0, low, "Headwaters Inlet"),
        (low, high, "Middle Creek-Lake"),
        (high, outer.max().y + 1.0, "Lake Outlet"),
    ]
    .into_iter()
    .map(|(y0, y1, label)| (band(shape, y0, y1), Some(label.to_string())))
    .filter(|(piece, _)| !piece.0.is_empty())
    .collect()
}

fn drop_fields(names: &'static [&'static str]) -> impl Fn(usize, &mut Map<String, serde_json::Value>) {
    move |_, p| p.retain(|k, _| !names.iter().any(|n| n.eq_ignore_ascii_case(k)))
}

/// The mistakes of reference layers that load but cannot serve their role, or are left out of the config.
pub(super) const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "shoreline layer left out of the config",
        plant: |c, _| {
            c.remove_layer("shoreline")?;
            stop_or_correct(&["[layers] shoreline"])
        },
    },
    Mistake {
        name: "watershed layer left out of the config",
        plant: |c, _| {
            c.remove_layer("watershed")?;
            stop_or_correct(&["[layers] watershed"])
        },
    },
    Mistake {
        name: "shoreline without a name field",
        plant: |c, _| {
            let shore = c.read("shoreline")?;
            let drop = drop_fields(NAMES);
            write_geojson(c, "shore_unnamed.geojson", &shore, Coordinates::In(&shore.crs), unchanged, drop)?;
            c.set_layer("shoreline", "shore_unnamed.geojson");
            stop_or_correct(&["shoreline_name"])
        },
    },
    Mistake {
        name: "shoreline layer without a feature",
        plant: |c, _| {
            let mut shore = c.read("shoreline")?;
            shore.features.clear();
            let keep = |_: usize, _: &mut Map<String, serde_json::Value>| {};
            write_geojson(c, "shore_empty.geojson", &shore, Coordinates::In(&shore.crs), unchanged, keep)?;
            c.set_layer("shoreline", "shore_empty.geojson");
            stop_or_correct(&["the shoreline layer has no features"])
        },
    },
    Mistake {
        name: "shoreline naming none of the rule set's water bodies",
        plant: |c, _| {
            let shore = c.read("shoreline")?;
            let rename = |k: usize, p: &mut Map<String, serde_json::Value>| {
                for n in NAMES {
                    if let Some(v) = p.get_mut(*n) {
                        *v = json!(format!("Lake {}", k + 1));
                    }
                }
            };
            write_geojson(c, "shore_other.geojson", &shore, Coordinates::In(&shore.crs), unchanged, rename)?;
            c.set_layer("shoreline", "shore_other.geojson");
            stop_or_correct(&["[water_bodies]"])
        },
    },
    Mistake {
        name: "watershed cut in half across its lake",
        plant: |c, _| {
            // The southern half, up to the lake's middle, under the watershed's own name.
            replace_watershed(c, "watershed_half.geojson", |shape, lake| {
                let middle = lake.min().y + lake.height() / 2.0;
                let outer = shape.bounding_rect().expect("a shape");
                vec![(band(shape, outer.min().y - 1.0, middle), None)]
            })?;
            stop_or_correct(&["outside its own watershed"])
        },
    },
    Mistake {
        name: "watershed as HUC-12 pieces, none named for the lake",
        plant: |c, _| {
            replace_watershed(c, "watershed_huc12.geojson", huc12)?;
            stop_or_correct(&["[water_bodies]"])
        },
    },
    Mistake {
        name: "watershed as HUC-12 pieces, mapped in [water_bodies]",
        plant: |c, _| {
            let (_, lake) = first_lake(c)?;
            let pieces = replace_watershed(c, "watershed_huc12.geojson", huc12)?;
            let mut map = toml::Table::new();
            map.insert(lake, toml::Value::Array(pieces.into_iter().map(toml::Value::from).collect()));
            c.toml.insert("water_bodies".into(), map.into());
            c.save();
            correct()
        },
    },
    Mistake {
        name: "floodplain without base flood elevations",
        plant: |c, _| {
            let flood = c.read("floodplain")?;
            flood.field_index("STATIC_BFE")?;
            let drop = drop_fields(&["STATIC_BFE"]);
            write_geojson(c, "flood_no_bfe.geojson", &flood, Coordinates::In(&flood.crs), unchanged, drop)?;
            c.set_layer("floodplain", "flood_no_bfe.geojson");
            Some(Planted { flags: Vec::new(), judge: Judge::Unknown(&["STATIC_BFE", "floodplain_bfe"]) })
        },
    },
    Mistake {
        name: "towns layer of another county's towns",
        plant: |c, _| {
            let towns = c.read("towns")?;
            let rename = |k: usize, p: &mut Map<String, serde_json::Value>| {
                for n in ["NAME", "TOWN", "MUNI_NAME", "NAMELSAD"] {
                    if let Some(v) = p.get_mut(n) {
                        *v = json!(format!("Elsewhere {}", k + 1));
                    }
                }
            };
            write_geojson(c, "towns_other.geojson", &towns, Coordinates::In(&towns.crs), unchanged, rename)?;
            c.set_layer("towns", "towns_other.geojson");
            stop_or_correct(&["Elsewhere 1"])
        },
    },
];

/// The sample county's config.
fn sample(label: &str, config: &str) -> County {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample").join(config);
    County::copy_of(&path, label)
}

/// Plants `mistake` (by name) in a copy of the sample run under `config`.
fn planted(label: &str, config: &str, mistake: &str) -> County {
    let mut county = sample(label, config);
    let plant = MISTAKES.iter().find(|m| m.name == mistake).expect("a planted mistake").plant;
    plant(&mut county, &Default::default()).expect("the sample has the layer");
    county
}

/// The Town of Gorham's Chapter 56 names no water body and has no periodic rule: a shoreline without names
/// and another county's towns are no mistake for it, and its run is as clean as the sample's.
#[test]
fn roles_the_rule_set_does_not_use_are_not_checked() {
    let clean = sample("gorham-clean", "gorham.toml").run("schedule", "2027-01-15", &[]);
    for mistake in ["shoreline without a name field", "towns layer of another county's towns"] {
        let run = planted("gorham", "gorham.toml", mistake).run("schedule", "2027-01-15", &[]);
        assert_eq!(run.code, clean.code, "{mistake}: {}", run.stderr);
    }
}

/// The stop names the layer, what is missing and the key that fixes it; the towns' names the towns found
/// and those the rule set knows.
#[test]
fn a_layer_that_cannot_serve_its_role_stops_naming_the_fix() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "shoreline without a name field",
            &["shore_unnamed.geojson", "its fields in shore_unnamed.geojson: MHW_FT", "shoreline_name"],
        ),
        (
            "shoreline naming none of the rule set's water bodies",
            &["shore_other.geojson", "Lake 1, Lake 2", "Owasco Lake, Little Sodus Bay", "[water_bodies]"],
        ),
        (
            "watershed cut in half across its lake",
            &["watershed_half.geojson", "Owasco Lake lies partly outside"],
        ),
        (
            "watershed as HUC-12 pieces, none named for the lake",
            &["watershed_huc12.geojson", "no watershed of Owasco Lake", "Headwaters Inlet", "watershed_name"],
        ),
        ("towns layer of another county's towns", &["Elsewhere 1", "Auburn, Aurelius", "Victory", "--rules"]),
    ];
    for (n, (mistake, words)) in cases.into_iter().enumerate() {
        let run = planted(&format!("role-{n}"), "county.toml", mistake).run("schedule", "2027-01-15", &[]);
        assert_eq!(run.code, Some(1), "{mistake}: {}", run.stderr);
        for word in words {
            assert!(run.stderr.contains(word), "{mistake}: no {word:?} in\n{}", run.stderr);
        }
        assert!(!run.out.join("schedule.csv").exists(), "{mistake}: a stopped run wrote its schedule");
    }
}

/// A watershed handed over as HUC-12 pieces, the pieces named in `[water_bodies]`: read as one, and the
/// run says how it read them.
#[test]
fn huc12_pieces_named_in_the_config_are_read_as_one_watershed() {
    let run = planted("huc12", "county.toml", "watershed as HUC-12 pieces, mapped in [water_bodies]").run(
        "schedule",
        "2027-01-15",
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let notes = &run.stdout;
    assert!(
        notes.contains("the watershed of Owasco Lake read as the union of 3 polygons (Headwaters Inlet, Lake Outlet, Middle Creek-Lake)"),
        "{notes}"
    );
}

/// A floodplain without `STATIC_BFE`: the missing field is warned of (exit 2), the inlet zone whose FEMA
/// elevation was 745.00 ft has no elevation and the verdict "unknown", and the lake's own zone takes 717.13
/// ft, under which a 720.00 ft bottom (below the 720.40 its 718.40 BFE required) is no longer sure: unknown,
/// never "ok".
#[test]
fn a_floodplain_without_base_flood_elevations_is_warned_of_and_borrows_nothing() {
    let run = planted("no-bfe", "county.toml", "floodplain without base flood elevations").run(
        "schedule",
        "2027-01-15",
        &[],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("no base flood elevation field"), "{}", run.stderr);
    let (_, rows) = crate::common::read_rows(&run.out.join("schedule.csv")).expect("schedule.csv");
    let row = |id: &str| rows.iter().find(|r| r["parcel_id"] == id).expect("the sample's parcel").clone();
    let lake = row("054689-122.18-1-12");
    assert_eq!(
        (lake["flood_elevation_ft"].as_str(), lake["required_bottom_ft"].as_str()),
        ("717.13", "719.13")
    );
    assert_eq!(lake["floodplain_verdict"], "unknown");
    for r in rows.iter().filter(|r| !r["flood_zone"].is_empty() && r["flood_elevation_ft"].is_empty()) {
        assert_eq!(r["floodplain_verdict"], "unknown", "parcel {}", r["parcel_id"]);
    }
    let inlet =
        rows.iter().filter(|r| r["flood_zone"] == "AE" && r["flood_elevation_ft"] == "745.00").count();
    assert_eq!(inlet, 0, "an inlet zone kept an elevation the layer no longer gives");
}

/// Every parcel on public sewer: the rule set's periodic rules schedule none, and the run stops.
#[test]
fn a_run_that_schedules_no_parcel_under_periodic_rules_stops() {
    let mut county = sample("all-sewered", "county.toml");
    let parcels = county.read("parcels").expect("parcels");
    let sewer = |_: usize, p: &mut Map<String, serde_json::Value>| {
        p.insert("SEWER_TYPE".into(), json!("3"));
    };
    write_geojson(
        &county,
        "parcels_sewered.geojson",
        &parcels,
        Coordinates::In(&parcels.crs),
        unchanged,
        sewer,
    )
    .expect("written");
    county.set_layer("parcels", "parcels_sewered.geojson");
    let run = county.run("schedule", "2027-01-15", &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("no parcel is scheduled"), "{}", run.stderr);
}

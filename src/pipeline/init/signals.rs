//! The roles a file of a county folder can play and the signals that point to each: shapes, file-name words,
//! field names and, for record files, what their columns hold. Data, not code paths.

use super::{Found, Shape};
use crate::classify::parcels::find_field;
use crate::model::id::whole_id_fields;

/// One role a file can play, and the signals that point to it.
pub struct Signal {
    /// The `[layers]` key.
    pub role: &'static str,
    /// What the role is, for messages.
    pub what: &'static str,
    /// The shapes a file for this role may have.
    pub shapes: &'static [Shape],
    /// Words in the file name that point to the role (lower case), 3 points.
    pub names: &'static [&'static str],
    /// Field or column names that point to the role (any case, truncations count), 4 points each; for the
    /// parcels, the names of the parcel-id table that hold a whole id count too.
    pub fields: &'static [&'static str],
    /// Words in the file name that point away from it.
    pub not_names: &'static [&'static str],
}

/// The roles and their signals, in the order of `county.toml`'s `[layers]`.
pub const SIGNALS: &[Signal] = &[
    Signal {
        role: "parcels",
        what: "tax parcels (polygons with SWIS/PRINT_KEY, SBL or PARCEL_ID)",
        shapes: &[Shape::Polygons],
        names: &["parcel", "tax", "sbl", "assess"],
        fields: &["PRIMARY_OWNER", "PROP_CLASS"],
        not_names: &[],
    },
    Signal {
        role: "shoreline",
        what: "lake polygons or mean-high-water lines, named by water body",
        shapes: &[Shape::Polygons, Shape::Lines],
        names: &["shore", "lake", "mhw", "waterbod", "bay", "water", "pond", "reservoir"],
        fields: &["MHW_FT", "MHW", "WATERBODY", "LAKE_NAME"],
        not_names: &["watershed", "watercourse", "basin"],
    },
    Signal {
        role: "watershed",
        what: "watershed polygons, named by water body",
        shapes: &[Shape::Polygons],
        names: &["watershed", "basin", "huc", "wbd", "drainage"],
        fields: &["HUC12", "HUC10", "HUC8", "WATERSHED"],
        not_names: &[],
    },
    Signal {
        role: "floodplain",
        what: "FEMA flood hazard areas (NFHL S_FLD_HAZ_AR: FLD_ZONE, SFHA_TF, STATIC_BFE)",
        shapes: &[Shape::Polygons],
        names: &["fld_haz", "flood", "nfhl", "fema", "firm"],
        fields: &["FLD_ZONE", "SFHA_TF", "STATIC_BFE", "ZONE_SUBTY"],
        not_names: &[],
    },
    Signal {
        role: "towns",
        what: "town and city polygons with their names",
        shapes: &[Shape::Polygons],
        names: &["town", "muni", "civil", "boundar", "city"],
        fields: &["MUNI_NAME", "CITYTOWN_NAME", "NAMELSAD", "MUNI_TYPE"],
        not_names: &["county"],
    },
    Signal {
        role: "systems",
        what: "septic system locations (points with the parcel id and the absorption-field bottom)",
        shapes: &[Shape::Points],
        names: &["system", "septic", "absorp", "owts", "leach"],
        fields: &["BOTTOM_FT", "BOTTOM_ELEV", "ABS_BOTTOM", "FIELD_BOTTOM"],
        not_names: &[],
    },
    Signal {
        role: "sewered",
        what: "public sewer district polygons",
        shapes: &[Shape::Polygons],
        names: &["sewer"],
        fields: &["SEWER_DIST", "DISTRICT"],
        not_names: &[],
    },
    Signal {
        role: "county",
        what: "the county boundary polygon",
        shapes: &[Shape::Polygons],
        names: &["county", "cnty"],
        fields: &["COUNTY", "COUNTY_NAME", "FIPS_CODE"],
        not_names: &[],
    },
    Signal {
        role: "history",
        what: "the inspection history (parcel_id, inspection_date, result...)",
        shapes: &[Shape::Table],
        names: &["history", "inspect"],
        fields: &["inspection_date", "report_received", "inspector", "result"],
        not_names: &[],
    },
    Signal {
        role: "watercourses",
        what: "streams and wetlands (lines and polygons)",
        shapes: &[Shape::Lines, Shape::Mixed, Shape::Polygons],
        names: &["watercourse", "stream", "wetland", "creek", "brook", "river", "hydro"],
        fields: &["KIND", "FTYPE", "GNIS_NAME", "WETLAND_TYPE"],
        not_names: &[],
    },
    Signal {
        role: "events",
        what: "events (parcel_id, date, event)",
        shapes: &[Shape::Table],
        names: &["event", "complaint", "transfer"],
        fields: &["event", "arms_length", "expansion_pct"],
        not_names: &[],
    },
    Signal {
        role: "pump_outs",
        what: "septic-tank pump-outs (parcel_id, date, hauler_licence)",
        shapes: &[Shape::Table],
        names: &["pump"],
        fields: &["hauler_licence", "hauler_license", "hauler"],
        not_names: &[],
    },
    Signal {
        role: "samples",
        what: "drainage-pipe samples (parcel_id, pipe_id, date, fecal_coliform_per_100ml)",
        shapes: &[Shape::Table],
        names: &["sample", "coliform"],
        fields: &["fecal_coliform_per_100ml", "pipe_id"],
        not_names: &[],
    },
    Signal {
        role: "pipes",
        what: "the register of known drainage pipes (parcel_id, pipe_id)",
        shapes: &[Shape::Table],
        names: &["pipe", "outfall"],
        fields: &["pipe_id"],
        not_names: &["sample"],
    },
    Signal {
        role: "dem",
        what: "an elevation raster (GeoTIFF or ESRI ASCII grid): the mean-high-water line is its contour",
        shapes: &[Shape::Raster],
        names: &["dem", "elev", "lidar", "dtm", "terrain", "topo", "height"],
        fields: &[],
        not_names: &[],
    },
];

/// The least score that assigns a role.
pub const ENOUGH: i32 = 3;

/// The roles a run cannot do without: the parcels, and the shore every distance is measured from.
pub const REQUIRED: [&str; 2] = ["parcels", "shoreline"];

/// The record-file roles whose rows carry a date.
const DATED: [&str; 4] = ["history", "events", "pump_outs", "samples"];

/// How well `found` fits `signal`: 0 when its shape rules it out.
///
/// A word of the name counts 3, each field 4, and for a record file a column whose values are the parcels'
/// ids 2 and a column of dates 2 (for the roles whose rows are dated), so that a log whose headers are
/// the office's own still fits.
pub fn score(found: &Found, signal: &Signal) -> i32 {
    if !signal.shapes.contains(&found.shape) {
        return 0;
    }
    let name = found.words.as_str();
    if signal.not_names.iter().any(|n| name.contains(n)) {
        return 0;
    }
    let mut score = 0;
    if signal.names.iter().any(|n| name.contains(n)) {
        score += 3;
    }
    let has = |field: &str| find_field(&found.fields, &[field]).is_some();
    score += 4 * signal.fields.iter().filter(|f| has(f)).count() as i32;
    if signal.role == "parcels" {
        score += 4 * whole_id_fields().filter(|f| has(f)).count() as i32;
    }
    // One county polygon; a town layer has a handful to a few dozen.
    match signal.role {
        "county" if found.records == 1 => score += 1,
        "towns" if (3..=200).contains(&found.records) => score += 1,
        _ => {}
    }
    if let Some(table) = &found.table {
        if table.id.is_some() {
            score += 2;
        }
        if table.date.is_some() && DATED.contains(&signal.role) {
            score += 2;
        }
    }
    score
}

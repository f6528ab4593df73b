//! The cross-check of the layers after reprojection: every reference layer must overlap the parcels (their
//! extents in the working CRS intersect), or the run stops. A watershed much larger than the parcels, or a
//! floodplain covering part of them, overlaps; a layer in the wrong place does not.
//!
//! The message names the layer, both extents in the working CRS and in longitude/latitude, and the likely
//! cause, found by trying the usual mistakes on the layer's own coordinates (`crs::mistakes`). When no
//! reference layer overlaps the parcels but they overlap one another, the parcels are the likely culprit
//! (the wrong file, or their coordinates wrong) and the mistakes are tried on them.

use std::path::{Path, PathBuf};

use geo::Rect;

use super::extent::{extent_of_features, grow, intersects, union};
use super::mistakes::{crs_label, lands, likely_causes};
use super::Crs;
use crate::crs::layer::Feature;
use crate::model::error::{Error, Result};

/// Where a layer lies, for the cross-check: its extent in its own CRS (every finite coordinate read) and in
/// the working CRS (its usable features after reprojection).
#[derive(Debug, Clone)]
pub struct LayerExtent {
    /// The layer's role: `parcels`, `shoreline`, `watershed`...
    pub role: &'static str,
    /// The file it was read from.
    pub path: PathBuf,
    /// Its own CRS (from its `.prj`, its GeoJSON `crs` or `--assume-crs`).
    pub crs: Crs,
    /// The box of its coordinates in its own CRS, before reprojection.
    pub source: Option<Rect<f64>>,
    /// The box of its usable features in the working CRS.
    pub working: Option<Rect<f64>>,
}

impl LayerExtent {
    /// The extent of the layer `role` at `path` in `crs`, before any feature is seen.
    pub fn new(role: &'static str, path: &Path, crs: &Crs) -> Self {
        LayerExtent { role, path: path.to_path_buf(), crs: crs.clone(), source: None, working: None }
    }

    /// Grows the extent in the layer's own CRS by `features`, as read.
    pub fn add_source(&mut self, features: &[Feature]) {
        grow(&mut self.source, extent_of_features(features));
    }

    /// Grows the extent in the working CRS by the usable `features`, reprojected and screened.
    pub fn add_working(&mut self, features: &[Feature]) {
        grow(&mut self.working, extent_of_features(features));
    }

    /// Whether the layer's working extent meets `other`'s.
    pub fn overlaps(&self, other: &LayerExtent) -> bool {
        matches!((&self.working, &other.working), (Some(a), Some(b)) if intersects(a, b))
    }
}

/// Checks that every layer of `others` overlaps `parcels` in `working`, the working CRS: an error naming each
/// that does not, with both extents and the likely cause, when one does not.
///
/// A layer with no coordinate at all (an empty file) has no place to disagree with and is not checked.
pub fn check_overlap(parcels: &LayerExtent, others: &[LayerExtent], working: &Crs) -> Result<()> {
    if parcels.source.is_none() {
        return Ok(());
    }
    let others: Vec<LayerExtent> = others.iter().filter(|o| o.source.is_some()).cloned().collect();
    let others = &others[..];
    let failing: Vec<&LayerExtent> = others.iter().filter(|o| !o.overlaps(parcels)).collect();
    if failing.is_empty() {
        return Ok(());
    }
    if parcels.working.is_none() && others.iter().all(|o| o.working.is_none()) {
        return Err(Error::crs(
            &parcels.path,
            format!(
                "no layer has a usable feature in the working CRS {}: their coordinates lie outside its area of \
                 use.\n  parcels: {}\n  choose a working CRS in feet for where the county lies (--crs, or crs = \
                 \"EPSG:nnnn\" in the config; `lakeshore init` suggests one)",
                crs_label(working),
                describe(parcels, working)
            ),
        ));
    }
    let agreeing: Vec<&LayerExtent> =
        others.iter().filter(|a| others.iter().any(|b| !std::ptr::eq(*a, b) && a.overlaps(b))).collect();
    let describe = |l: &LayerExtent| describe(l, working);
    if failing.len() == others.len()
        && (agreeing.len() >= 2 || others.len() == 1 || parcels.working.is_none())
    {
        let witnesses = if agreeing.len() >= 2 { agreeing.clone() } else { others.iter().collect() };
        let names: Vec<&str> = witnesses.iter().map(|l| l.role).collect();
        let target = witnesses.iter().filter_map(|l| l.working).reduce(union);
        let mut causes = match (&parcels.source, &target) {
            (Some(source), Some(target)) => {
                likely_causes(source, &parcels.crs, working, target, "the reference layers")
            }
            _ => Vec::new(),
        };
        let agree = if witnesses.len() >= 2 && agreeing.len() >= 2 {
            format!(
                "the reference layers ({}) agree with one another, so the parcels layer is the likely culprit: the \
                 wrong file, or its coordinates in the wrong place",
                names.join(", ")
            )
        } else {
            format!("either the parcels layer or the {} layer is in the wrong place", names.join(", "))
        };
        // A single reference layer may be the one in the wrong place, and so may all of them when nothing
        // undoes a mistake of the parcels'.
        if others.len() == 1 || causes.is_empty() {
            for layer in &witnesses {
                let theirs = layer_causes(layer, parcels, working);
                causes.extend(theirs.into_iter().map(|c| format!("the {} layer: {c}", layer.role)));
            }
        }
        let message = format!(
            "the parcels layer does not overlap any reference layer after reprojection into {}; {agree}.\n  parcels: \
             {}\n{}\n  likely cause: {}",
            crs_label(working),
            describe(parcels),
            witnesses.iter().map(|l| format!("  {}: {}", l.role, describe(l))).collect::<Vec<_>>().join("\n"),
            causes_text(&causes, &parcels.crs)
        );
        return Err(Error::crs(&parcels.path, message));
    }
    let mut lines = Vec::new();
    for layer in &failing {
        let causes = layer_causes(layer, parcels, working);
        lines.push(format!(
            "the {} layer {} does not overlap the parcels after reprojection into {}.\n  {}: {}\n  parcels: {}\n  \
             likely cause: {}",
            layer.role,
            layer.path.display(),
            crs_label(working),
            layer.role,
            describe(layer),
            describe(parcels),
            causes_text(&causes, &layer.crs)
        ));
    }
    Err(Error::crs(&failing[0].path, lines.join("\n")))
}

/// The likely causes of `layer` not falling on the parcels.
fn layer_causes(layer: &LayerExtent, parcels: &LayerExtent, working: &Crs) -> Vec<String> {
    match (&layer.source, &parcels.working) {
        (Some(source), Some(target)) => likely_causes(source, &layer.crs, working, target, "the parcels"),
        _ => Vec::new(),
    }
}

/// The causes as one sentence, or what to check when none fits.
fn causes_text(causes: &[String], crs: &Crs) -> String {
    if causes.is_empty() {
        format!(
            "none of the usual mistakes (axes swapped, metres read as feet or the reverse, another State Plane \
             zone, a .prj in degrees on projected numbers or the reverse) makes it overlap: check that the file \
             covers the same place as the others and that its CRS, {}, is right",
            crs_label(crs)
        )
    } else {
        causes.join("; or ")
    }
}

/// A layer's extents: in the working CRS and in longitude/latitude, and in its own CRS when that differs.
fn describe(layer: &LayerExtent, working: &Crs) -> String {
    let boxed = |r: &Rect<f64>, digits: usize| {
        format!(
            "x {:.digits$} to {:.digits$}, y {:.digits$} to {:.digits$}",
            r.min().x,
            r.max().x,
            r.min().y,
            r.max().y
        )
    };
    let lonlat = |r: &Rect<f64>, crs: &Crs| {
        lands(r, crs, &Crs::wgs84(), false).map_or_else(
            || "longitude/latitude unknown".to_string(),
            |g| {
                format!(
                    "longitude {:.4} to {:.4}, latitude {:.4} to {:.4}",
                    g.min().x,
                    g.max().x,
                    g.min().y,
                    g.max().y
                )
            },
        )
    };
    let mut text = match (&layer.working, &layer.source) {
        (Some(r), _) => {
            format!(
                "{}: {} ft in {} ({})",
                layer.path.display(),
                boxed(r, 0),
                working.short_name(),
                lonlat(r, working)
            )
        }
        (None, source) => format!(
            "{}: no usable feature in {} (every one lies outside its area of use, or could not be read){}",
            layer.path.display(),
            working.short_name(),
            // A geographic layer's own extent below says where it was read.
            source
                .filter(|_| !layer.crs.is_geographic().unwrap_or(false))
                .map_or_else(String::new, |s| format!(", read at {}", lonlat(&s, &layer.crs)))
        ),
    };
    if let Some(source) = layer.source.filter(|_| &layer.crs != working) {
        let digits = if layer.crs.is_geographic().unwrap_or(false) { 4 } else { 0 };
        text.push_str(&format!("; as read, {} in {}", boxed(&source, digits), crs_label(&layer.crs)));
    }
    text
}

#[cfg(test)]
mod tests {
    use geo::coord;

    use super::*;
    use crate::crs::CrsDef;

    fn extent(role: &'static str, code: u32, r: (f64, f64, f64, f64)) -> LayerExtent {
        let rect = Rect::new(coord! { x: r.0, y: r.1 }, coord! { x: r.2, y: r.3 });
        let crs = Crs { def: CrsDef::Epsg(code) };
        let working = Crs::ny_central_ftus();
        let landed = lands(&rect, &crs, &working, false).filter(|_| code != 2262);
        LayerExtent { role, path: format!("{role}.shp").into(), crs, source: Some(rect), working: landed }
    }

    const COUNTY: (f64, f64, f64, f64) = (800_000.0, 1_050_000.0, 830_000.0, 1_080_000.0);

    #[test]
    fn a_larger_or_partly_overlapping_layer_passes() {
        let parcels = extent("parcels", 2261, COUNTY);
        let watershed = extent("watershed", 2261, (700_000.0, 900_000.0, 1_000_000.0, 1_300_000.0));
        let floodplain = extent("floodplain", 2261, (825_000.0, 1_075_000.0, 900_000.0, 1_100_000.0));
        assert!(check_overlap(&parcels, &[watershed, floodplain], &Crs::ny_central_ftus()).is_ok());
    }

    #[test]
    fn layers_all_outside_the_working_crs_ask_for_another_one() {
        let mut parcels = extent("parcels", 2261, COUNTY);
        let mut towns = extent("towns", 2261, COUNTY);
        (parcels.working, towns.working) = (None, None);
        let err = check_overlap(&parcels, &[towns], &Crs::ny_central_ftus()).unwrap_err().to_string();
        assert!(err.contains("choose a working CRS"), "{err}");
    }

    #[test]
    fn an_empty_layer_has_nothing_to_disagree_with() {
        let parcels = extent("parcels", 2261, COUNTY);
        let empty = LayerExtent::new("watercourses", Path::new("w.geojson"), &Crs::wgs84());
        assert!(check_overlap(
            &parcels,
            &[empty.clone(), extent("towns", 2261, COUNTY)],
            &Crs::ny_central_ftus()
        )
        .is_ok());
        let no_parcels = LayerExtent::new("parcels", Path::new("p.shp"), &Crs::ny_central_ftus());
        assert!(check_overlap(&no_parcels, &[empty], &Crs::ny_central_ftus()).is_ok());
    }

    #[test]
    fn a_layer_elsewhere_is_named_with_its_extents() {
        let parcels = extent("parcels", 2261, COUNTY);
        let towns = extent("towns", 2261, COUNTY);
        let mut floodplain = extent("floodplain", 2262, COUNTY);
        floodplain.working =
            lands(&floodplain.source.unwrap(), &floodplain.crs, &Crs::ny_central_ftus(), false);
        let err =
            check_overlap(&parcels, &[towns, floodplain], &Crs::ny_central_ftus()).unwrap_err().to_string();
        for words in
            ["floodplain layer floodplain.shp", "longitude", "latitude", "neighbouring zone EPSG:2261"]
        {
            assert!(err.contains(words), "{words}: {err}");
        }
        assert!(!err.contains("towns:"), "{err}");
    }

    #[test]
    fn parcels_no_reference_layer_meets_are_the_culprit_when_those_agree() {
        let mut parcels = extent("parcels", 2261, COUNTY);
        // The parcels' coordinates in metres under a CRS in feet.
        parcels.source =
            Some(Rect::new(coord! { x: 243_840.0, y: 320_040.0 }, coord! { x: 252_984.0, y: 329_184.0 }));
        parcels.working =
            Some(Rect::new(coord! { x: 243_840.0, y: 320_040.0 }, coord! { x: 252_984.0, y: 329_184.0 }));
        let others = [
            extent("towns", 2261, COUNTY),
            extent("county", 2261, (790_000.0, 1_040_000.0, 840_000.0, 1_090_000.0)),
        ];
        let err = check_overlap(&parcels, &others, &Crs::ny_central_ftus()).unwrap_err().to_string();
        assert!(err.contains("parcels layer is the likely culprit"), "{err}");
        assert!(err.contains("its coordinates are in metres"), "{err}");
    }
}

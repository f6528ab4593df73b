//! Copies the layers of a county into one GeoPackage, one table per layer, with a county config that reads
//! them from it (`layers = "county.gpkg:parcels"`); record files stay where they are. Used by
//! `bench/run.sh` (with `GPKG=1`) to time a county read from a GeoPackage against the same county read from
//! shapefiles.
//!
//!     cargo run --release --example gpkg_county -- COUNTY.toml OUT_DIR

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use geo::{Geometry, MultiPolygon};
use lakeshore::crs::layer::{Layer, Value};
use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::model::table::{Cell, Kind, Table};
use lakeshore::pipeline::config::ConfigFile;
use lakeshore::write::gpkg::GpkgWriter;

/// A layer as a table: its fields as columns (numbers when every value is one), its shapes as geometry.
struct LayerTable {
    columns: Vec<(&'static str, Kind)>,
    layer: Layer,
}

impl LayerTable {
    fn new(layer: Layer) -> Self {
        let columns = (0..layer.fields.len())
            .map(|i| {
                let numeric =
                    layer.features.iter().all(|f| matches!(f.values[i], Value::Number(_) | Value::Null));
                // Column names live as long as the program, which is one conversion.
                let name: &'static str = Box::leak(layer.fields[i].clone().into_boxed_str());
                (name, if numeric { Kind::Float } else { Kind::Text })
            })
            .collect();
        LayerTable { columns, layer }
    }
}

impl Table for LayerTable {
    fn columns(&self) -> &[(&'static str, Kind)] {
        &self.columns
    }
    fn len(&self) -> usize {
        self.layer.features.len()
    }
    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        match &self.layer.features[row].values[column] {
            Value::Null => Cell::Null,
            Value::Text(t) => Cell::Text(Cow::Borrowed(t)),
            Value::Number(n) => Cell::Float(*n, 6),
            Value::Bool(b) => Cell::Bool(*b),
        }
    }
    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        match &self.layer.features[row].geometry {
            Ok(Geometry::MultiPolygon(mp)) => Some(mp),
            _ => None,
        }
    }
    fn other_geometry(&self, row: usize) -> Option<Geometry<f64>> {
        match &self.layer.features[row].geometry {
            Ok(Geometry::MultiPolygon(_)) | Err(_) => None,
            Ok(g) => Some(g.clone()),
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [config, out] = args.as_slice() else {
        anyhow::bail!("usage: gpkg_county COUNTY.toml OUT_DIR");
    };
    let file = ConfigFile::load(Path::new(config))?;
    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out)?;
    let gpkg = out.join("county.gpkg");
    let l = &file.layers;
    let layers = [
        ("parcels", &l.parcels),
        ("shoreline", &l.shoreline),
        ("watershed", &l.watershed),
        ("floodplain", &l.floodplain),
        ("towns", &l.towns),
        ("systems", &l.systems),
        ("sewered", &l.sewered),
        ("county", &l.county),
        ("watercourses", &l.watercourses),
    ];
    let mut writer = GpkgWriter::create(&gpkg)?;
    let mut toml = String::new();
    for key in ["crs", "assume_crs"] {
        let value = if key == "crs" { &file.crs } else { &file.assume_crs };
        if let Some(v) = value {
            toml.push_str(&format!("{key} = {v:?}\n"));
        }
    }
    if let Some(t) = file.border_tolerance_ft {
        toml.push_str(&format!("border_tolerance_ft = {t:?}\n"));
    }
    if let Some(rules) = &file.rules {
        toml.push_str(&format!("rules = {:?}\n", rules.canonicalize()?));
    }
    toml.push_str("[layers]\n");
    let options = ReadOptions {
        assume_crs: file.assume_crs.as_deref().map(lakeshore::crs::Crs::parse).transpose()?,
        keep: None,
    };
    for (name, path) in layers {
        let Some(path) = path else { continue };
        let (layer, _) = read_layer(path, &options)?;
        let crs = layer.crs.clone();
        writer.add(name, &LayerTable::new(layer), &crs)?;
        toml.push_str(&format!("{name} = \"county.gpkg:{name}\"\n"));
    }
    writer.finish()?;
    for (name, path) in [
        ("history", &l.history),
        ("events", &l.events),
        ("pump_outs", &l.pump_outs),
        ("samples", &l.samples),
        ("pipes", &l.pipes),
    ] {
        if let Some(path) = path {
            toml.push_str(&format!("{name} = {:?}\n", path.canonicalize()?));
        }
    }
    std::fs::write(out.join("county.toml"), toml)?;
    println!("wrote {} and {}", gpkg.display(), out.join("county.toml").display());
    Ok(())
}

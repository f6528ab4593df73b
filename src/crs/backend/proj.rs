//! The optional backend: PROJ 9 through the `proj` crate (cargo feature `proj`), built from source.
//!
//! PROJ objects belong to one thread, so each rayon worker builds its own transformation on first use and
//! keeps it in a small thread-local cache keyed by the [`ProjBackend`] it came from. Axis order is normalised
//! by `Proj::new_known_crs` (PROJ's `proj_normalize_for_visualization`): longitude/latitude and
//! easting/northing, in degrees.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use proj::Proj;

use super::Backend;
use crate::crs::{Crs, CrsDef};
use crate::model::error::{Error, Result};

/// How many transformations one thread keeps; old ones are dropped first.
const CACHE_SIZE: usize = 8;

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static CACHE: RefCell<Vec<(u64, Proj)>> = const { RefCell::new(Vec::new()) };
}

/// Transformations computed by PROJ itself.
#[derive(Debug)]
pub struct ProjBackend {
    id: u64,
    from: String,
    to: String,
}

/// How PROJ is told about a CRS: its own EPSG database, the PROJ string, or the WKT as written.
fn definition(crs: &Crs) -> String {
    match &crs.def {
        CrsDef::Epsg(code) => format!("EPSG:{code}"),
        CrsDef::Proj4(s) if s.contains("+type=crs") => s.clone(),
        CrsDef::Proj4(s) => format!("{s} +type=crs"),
        CrsDef::Wkt(s) => s.clone(),
    }
}

impl ProjBackend {
    fn create(&self) -> std::result::Result<Proj, String> {
        Proj::new_known_crs(&self.from, &self.to, None).map_err(|e| e.to_string())
    }
}

impl Backend for ProjBackend {
    fn new(from: &Crs, to: &Crs) -> Result<Self> {
        let backend = ProjBackend {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            from: definition(from),
            to: definition(to),
        };
        let proj = backend.create().map_err(|e| {
            Error::crs(from.short_name(), format!("PROJ cannot transform to {}: {e}", to.short_name()))
        })?;
        CACHE.with(|c| remember(&mut c.borrow_mut(), backend.id, proj));
        Ok(backend)
    }

    fn transform_point(&self, x: f64, y: f64) -> Result<(f64, f64), String> {
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            if !cache.iter().any(|(id, _)| *id == self.id) {
                let proj = self.create()?;
                remember(&mut cache, self.id, proj);
            }
            let proj =
                cache.iter().find(|(id, _)| *id == self.id).map(|(_, p)| p).ok_or("PROJ cache miss")?;
            let (x, y) = proj.convert((x, y)).map_err(|e| e.to_string())?;
            if x.is_finite() && y.is_finite() {
                Ok((x, y))
            } else {
                Err("the result is not a finite number".to_string())
            }
        })
    }
}

fn remember(cache: &mut Vec<(u64, Proj)>, id: u64, proj: Proj) {
    if cache.len() >= CACHE_SIZE {
        cache.remove(0);
    }
    cache.push((id, proj));
}

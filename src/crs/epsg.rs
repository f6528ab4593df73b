//! The built-in EPSG table: a PROJ string and an OGC WKT for each code `crs-definitions` knows, packed by
//! `build.rs` into a Deflate-compressed blob (under 1 MB of the binary instead of 4.5 MB of text) and
//! inflated once, the first time a code is looked up.

use std::io::Read;
use std::sync::OnceLock;

/// One code's definition.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Def {
    /// The PROJ string.
    pub proj4: &'static str,
    /// The OGC WKT (WKT1).
    pub wkt: &'static str,
}

impl Def {
    /// The CRS's name: the first quoted text of its WKT.
    pub fn name(&self) -> Option<&'static str> {
        self.wkt.split('"').nth(1)
    }
}

/// The definition of EPSG `code`, if the table has it.
pub(crate) fn from_code(code: u32) -> Option<Def> {
    let code = u16::try_from(code).ok()?;
    let table = table();
    table.binary_search_by_key(&code, |(c, _)| *c).ok().map(|i| table[i].1)
}

/// Every code of the table with its definition, in code order.
pub(crate) fn all() -> impl Iterator<Item = (u32, Def)> {
    table().iter().map(|(code, def)| (u32::from(*code), *def))
}

/// The table, inflated and split on first use.
fn table() -> &'static [(u16, Def)] {
    static TABLE: OnceLock<Vec<(u16, Def)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/epsg.deflate"));
        let mut text = String::new();
        flate2::read::DeflateDecoder::new(PACKED)
            .read_to_string(&mut text)
            .expect("the EPSG table built into the binary inflates to UTF-8 text");
        let text: &'static str = Box::leak(text.into_boxed_str());
        parse(text)
    })
}

/// The records `code NUL PROJ NUL WKT NUL` of the inflated blob, the code in decimal.
fn parse(text: &'static str) -> Vec<(u16, Def)> {
    let mut fields = text.split('\0');
    let mut defs = Vec::new();
    while let (Some(code), Some(proj4), Some(wkt)) = (fields.next(), fields.next(), fields.next()) {
        if let Ok(code) = code.parse() {
            defs.push((code, Def { proj4, wkt }));
        }
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back_as_the_epsg_registry_defines_them() {
        // EPSG:2261, NAD83 / New York Central (ftUS), by the EPSG registry: a transverse Mercator on
        // 76°35' W, 40° N, scale 1 − 1/16 000, false easting 250 000 m.
        let def = from_code(2261).expect("EPSG:2261 is in the table");
        assert!(def.wkt.starts_with(r#"PROJCS["NAD83 / New York Central (ftUS)""#), "{}", def.wkt);
        assert!(def.proj4.contains("+proj=tmerc") && def.proj4.contains("+lon_0=-76.58333333333333"));
        assert!(def.proj4.contains("+x_0=249999.9998983998") && def.proj4.contains("+units=us-ft"));
        assert_eq!(from_code(4326).map(|d| d.proj4), Some("+proj=longlat +datum=WGS84 +no_defs"));
        assert!(from_code(1).is_none() && from_code(70_000).is_none());
    }

    #[test]
    fn every_code_reads_back_as_crs_definitions_has_it() {
        let mut read = all();
        for code in 0..=u16::MAX {
            if let Some(want) = crs_definitions::from_code(code) {
                let (got, def) = read.next().expect("the table ends early");
                assert_eq!((got, def.proj4, def.wkt), (u32::from(code), want.proj4, want.wkt));
            }
        }
        assert!(read.next().is_none(), "the table has codes crs-definitions does not");
    }
}

//! The US State Plane zones in feet that lakeshore can use as a working CRS, by their area of use: which
//! zone a county's data lies in, for `lakeshore init` to suggest when the parcels are not in feet.
//!
//! The table holds every NAD83 State Plane zone that has an EPSG code in US survey or international feet
//! (the unit each state's law chose), with the area of use EPSG gives it (the bounding box in degrees, as the
//! ArcGIS projected coordinate system tables list it). Zones with no EPSG code in feet (Alabama, Alaska,
//! Hawaii but Oahu, Missouri, Puerto Rico) are not in it: the built-in EPSG table and so both backends know
//! only EPSG codes. A test checks that every code parses, is in feet and names its zone.

/// One State Plane zone in feet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zone {
    /// The EPSG code (`2261`).
    pub epsg: u32,
    /// The zone as EPSG names it, without `NAD83 / ` and the unit (`New York Central`).
    pub name: &'static str,
    /// Area of use: southernmost latitude, degrees.
    pub south: f64,
    /// Area of use: westernmost longitude, degrees.
    pub west: f64,
    /// Area of use: northernmost latitude, degrees.
    pub north: f64,
    /// Area of use: easternmost longitude, degrees.
    pub east: f64,
}

impl Zone {
    fn contains(&self, lon: f64, lat: f64) -> bool {
        (self.west..=self.east).contains(&lon) && (self.south..=self.north).contains(&lat)
    }

    /// How far `(lon, lat)` lies inside the zone's box, degrees to its nearest edge: where the boxes of two
    /// zones overlap (along the county line between them), the point lies deeper inside its own zone's.
    fn depth(&self, lon: f64, lat: f64) -> f64 {
        (lon - self.west).min(self.east - lon).min(lat - self.south).min(self.north - lat)
    }
}

const fn zone(epsg: u32, name: &'static str, south: f64, west: f64, north: f64, east: f64) -> Zone {
    Zone { epsg, name, south, west, north, east }
}

/// The zones, by state.
pub const ZONES: &[Zone] = &[
    zone(2222, "Arizona East", 31.33, -111.71, 37.00, -109.05),
    zone(2223, "Arizona Central", 31.33, -113.35, 37.00, -110.45),
    zone(2224, "Arizona West", 32.06, -114.81, 37.00, -112.52),
    zone(3433, "Arkansas North", 34.68, -94.62, 36.49, -89.65),
    zone(3434, "Arkansas South", 33.00, -94.48, 35.10, -90.40),
    zone(2225, "California zone 1", 39.59, -124.44, 42.00, -120.00),
    zone(2226, "California zone 2", 38.03, -124.05, 40.15, -119.55),
    zone(2227, "California zone 3", 36.74, -123.02, 38.70, -117.84),
    zone(2228, "California zone 4", 35.79, -122.01, 37.57, -115.63),
    zone(2229, "California zone 5", 32.77, -121.42, 35.81, -114.13),
    zone(2230, "California zone 6", 32.53, -118.15, 34.08, -114.42),
    zone(2231, "Colorado North", 39.56, -109.05, 41.00, -102.05),
    zone(2232, "Colorado Central", 38.15, -109.05, 40.09, -102.05),
    zone(2233, "Colorado South", 37.00, -109.05, 38.67, -102.04),
    zone(2234, "Connecticut", 40.99, -73.73, 42.05, -71.79),
    zone(2235, "Delaware", 38.44, -75.78, 39.84, -74.95),
    zone(2236, "Florida East", 24.41, -82.33, 30.83, -79.97),
    zone(2237, "Florida West", 26.27, -83.33, 29.60, -81.13),
    zone(2238, "Florida North", 29.21, -87.63, 31.00, -82.04),
    zone(2239, "Georgia East", 30.36, -83.46, 34.68, -80.78),
    zone(2240, "Georgia West", 30.62, -85.61, 35.00, -83.00),
    zone(3759, "Hawaii zone 3", 21.21, -158.32, 21.75, -157.62),
    zone(2241, "Idaho East", 42.00, -113.24, 44.75, -111.05),
    zone(2242, "Idaho Central", 42.00, -115.29, 45.70, -112.68),
    zone(2243, "Idaho West", 42.00, -117.24, 49.00, -114.32),
    zone(3435, "Illinois East", 37.06, -89.27, 42.50, -87.02),
    zone(3436, "Illinois West", 36.99, -91.52, 42.51, -88.93),
    zone(2965, "Indiana East", 37.97, -86.59, 41.77, -84.79),
    zone(2966, "Indiana West", 37.78, -88.10, 41.77, -86.24),
    zone(3417, "Iowa North", 41.85, -96.64, 43.50, -90.15),
    zone(3418, "Iowa South", 40.37, -96.14, 42.04, -90.14),
    zone(3419, "Kansas North", 38.51, -102.05, 40.00, -94.60),
    zone(3420, "Kansas South", 36.99, -102.05, 38.86, -94.61),
    zone(3089, "Kentucky Single Zone", 36.50, -89.56, 39.14, -81.96),
    zone(2246, "Kentucky North", 37.71, -85.96, 39.14, -82.48),
    zone(2247, "Kentucky South", 36.50, -89.56, 38.19, -81.96),
    zone(3451, "Louisiana North", 30.85, -94.04, 33.02, -90.87),
    zone(3452, "Louisiana South", 28.85, -93.94, 31.06, -88.76),
    zone(3453, "Louisiana Offshore", 28.85, -94.04, 33.02, -88.76),
    zone(26847, "Maine East", 43.89, -70.03, 47.47, -66.92),
    zone(26848, "Maine West", 43.04, -71.09, 46.57, -69.27),
    zone(2248, "Maryland", 37.98, -79.49, 39.73, -74.98),
    zone(2249, "Massachusetts Mainland", 41.46, -73.50, 42.89, -69.86),
    zone(2250, "Massachusetts Island", 41.20, -70.90, 41.51, -69.89),
    zone(2251, "Michigan North", 45.09, -90.41, 48.31, -83.45),
    zone(2252, "Michigan Central", 43.81, -87.05, 45.92, -82.27),
    zone(2253, "Michigan South", 41.70, -87.20, 44.21, -82.13),
    zone(26849, "Minnesota North", 46.66, -97.22, 49.38, -89.49),
    zone(26850, "Minnesota Central", 45.28, -96.85, 47.48, -92.29),
    zone(26851, "Minnesota South", 43.50, -96.84, 45.59, -91.22),
    zone(2254, "Mississippi East", 30.02, -89.96, 35.01, -88.09),
    zone(2255, "Mississippi West", 31.00, -91.64, 35.00, -89.38),
    zone(2256, "Montana", 44.36, -116.04, 49.00, -104.02),
    zone(26852, "Nebraska", 40.00, -104.06, 43.00, -95.32),
    zone(3421, "Nevada East", 35.00, -117.01, 42.00, -114.04),
    zone(3422, "Nevada Central", 36.00, -118.18, 40.99, -114.99),
    zone(3423, "Nevada West", 36.96, -120.00, 42.00, -116.99),
    zone(3437, "New Hampshire", 42.70, -72.56, 45.31, -70.65),
    zone(3424, "New Jersey", 38.87, -75.60, 41.35, -73.89),
    zone(2257, "New Mexico East", 32.00, -105.71, 37.00, -103.00),
    zone(2258, "New Mexico Central", 31.78, -107.72, 37.00, -104.84),
    zone(2259, "New Mexico West", 31.33, -109.05, 37.00, -106.32),
    zone(2260, "New York East", 40.89, -75.87, 45.02, -73.24),
    zone(2261, "New York Central", 42.00, -77.75, 44.40, -75.07),
    zone(2262, "New York West", 42.00, -79.76, 43.64, -77.36),
    zone(2263, "New York Long Island", 40.53, -74.05, 41.21, -71.80),
    zone(2264, "North Carolina", 33.83, -84.32, 36.59, -75.39),
    zone(2265, "North Dakota North", 47.16, -104.05, 49.00, -96.84),
    zone(2266, "North Dakota South", 45.93, -104.05, 47.82, -96.55),
    zone(3734, "Ohio North", 40.11, -84.79, 42.33, -80.52),
    zone(3735, "Ohio South", 38.40, -84.81, 40.35, -80.70),
    zone(2267, "Oklahoma North", 35.27, -103.00, 37.00, -94.43),
    zone(2268, "Oklahoma South", 33.62, -100.00, 35.56, -94.43),
    zone(2269, "Oregon North", 43.95, -124.17, 46.25, -116.47),
    zone(2270, "Oregon South", 41.99, -124.59, 44.56, -116.90),
    zone(2271, "Pennsylvania North", 40.61, -80.52, 42.52, -74.70),
    zone(2272, "Pennsylvania South", 39.72, -80.53, 41.17, -74.73),
    zone(3438, "Rhode Island", 41.27, -71.85, 42.01, -71.09),
    zone(2273, "South Carolina", 32.05, -83.35, 35.21, -78.53),
    zone(4457, "South Dakota North", 44.15, -104.06, 45.94, -96.45),
    zone(3455, "South Dakota South", 42.49, -104.06, 44.78, -96.44),
    zone(2274, "Tennessee", 35.00, -90.32, 36.68, -81.66),
    zone(2275, "Texas North", 34.31, -103.03, 36.49, -99.99),
    zone(2276, "Texas North Central", 31.72, -103.06, 34.58, -94.00),
    zone(2277, "Texas Central", 29.78, -106.65, 32.26, -93.51),
    zone(2278, "Texas South Central", 27.78, -105.00, 30.67, -93.77),
    zone(2279, "Texas South", 25.83, -100.20, 28.20, -96.85),
    zone(3560, "Utah North", 40.56, -114.05, 42.00, -109.05),
    zone(3566, "Utah Central", 38.49, -114.05, 41.08, -109.05),
    zone(3567, "Utah South", 36.99, -114.05, 38.58, -109.04),
    zone(5646, "Vermont", 42.73, -73.44, 45.02, -71.51),
    zone(2283, "Virginia North", 37.78, -80.05, 39.46, -76.51),
    zone(2284, "Virginia South", 36.54, -83.68, 38.27, -75.32),
    zone(2285, "Washington North", 47.08, -124.79, 49.05, -117.03),
    zone(2286, "Washington South", 45.54, -124.40, 47.61, -116.92),
    zone(26853, "West Virginia North", 38.76, -81.76, 40.64, -77.73),
    zone(26854, "West Virginia South", 37.20, -82.65, 39.16, -79.06),
    zone(2287, "Wisconsin North", 45.38, -92.89, 47.30, -88.05),
    zone(2288, "Wisconsin Central", 43.99, -92.89, 45.80, -86.25),
    zone(2289, "Wisconsin South", 42.49, -91.43, 44.33, -86.96),
    zone(3736, "Wyoming East", 41.00, -106.33, 45.00, -104.05),
    zone(3737, "Wyoming East Central", 41.00, -108.63, 45.00, -106.00),
    zone(3738, "Wyoming West Central", 41.00, -111.05, 45.00, -107.50),
    zone(3739, "Wyoming West", 41.00, -111.05, 44.66, -109.05),
];

/// The zones fit for data whose extent is `west..east` by `south..north` (degrees), best first: zones whose
/// area of use holds the whole extent, then zones that hold its centre; in each group the zone the centre
/// lies deepest in first. Empty when no zone holds the centre.
pub fn zones_for(west: f64, south: f64, east: f64, north: f64) -> Vec<&'static Zone> {
    let (lon, lat) = ((west + east) / 2.0, (south + north) / 2.0);
    let mut fit: Vec<(bool, &Zone)> = ZONES
        .iter()
        .filter(|z| z.contains(lon, lat))
        .map(|z| (z.contains(west, south) && z.contains(east, north), z))
        .collect();
    let depth = |z: &Zone| z.depth(lon, lat);
    fit.sort_by(|a, b| b.0.cmp(&a.0).then(depth(b.1).total_cmp(&depth(a.1))).then(a.1.epsg.cmp(&b.1.epsg)));
    fit.into_iter().map(|(_, z)| z).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crs::Crs;

    /// Every zone's code is in the built-in table, projected in feet, named as the zone in EPSG's own
    /// definition, and its central meridian lies in or beside its area of use.
    #[test]
    fn every_zone_is_a_usable_foot_crs_named_as_its_zone() {
        for z in ZONES {
            let crs = Crs::parse(&format!("EPSG:{}", z.epsg)).unwrap_or_else(|e| panic!("{z:?}: {e}"));
            assert!(crs.require_feet().is_ok(), "{z:?}");
            let wkt = crs.wkt().unwrap();
            assert!(wkt.starts_with(&format!("PROJCS[\"NAD83 / {} (ft", z.name)), "{z:?}: {wkt}");
            let proj = crs.to_proj_string().unwrap();
            let lon_0 = proj
                .split_whitespace()
                .find_map(|p| p.strip_prefix("+lon_0="))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap();
            assert!((z.west - 1.0..=z.east + 1.0).contains(&lon_0), "{z:?}: lon_0 {lon_0}");
            assert!(z.south < z.north && z.west < z.east, "{z:?}");
        }
        let mut codes: Vec<u32> = ZONES.iter().map(|z| z.epsg).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ZONES.len());
    }

    #[test]
    fn a_place_gets_its_own_states_zone() {
        // Auburn NY, Columbus OH, Denver CO, Boise ID: towns well inside one zone.
        for ((lon, lat), want) in [
            ((-76.56, 42.93), 2261),
            ((-83.0, 39.96), 3735),
            ((-104.99, 39.74), 2232),
            ((-116.2, 43.6), 2243),
        ] {
            let got = zones_for(lon - 0.05, lat - 0.05, lon + 0.05, lat + 0.05);
            assert_eq!(got.first().map(|z| z.epsg), Some(want), "{lon}, {lat}: {got:?}");
        }
        // Mid-Atlantic ocean, and Alabama, which has no zone in feet.
        assert!(zones_for(-40.1, 30.0, -40.0, 30.1).is_empty());
        assert!(zones_for(-86.9, 33.5, -86.7, 33.6).is_empty());
    }
}

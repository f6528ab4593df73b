//! Tests of CRS recognition and the feet requirement.

use super::*;

/// `.prj` text as ArcGIS writes it for EPSG:2261 (false easting 250 000 m exactly, `Foot_US`).
pub(crate) const ARCGIS_2261: &str = concat!(
    r#"PROJCS["NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet",GEOGCS["GCS_North_American_1983","#,
    r#"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
    r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#,
    r#"PARAMETER["False_Easting",820208.3333333333],PARAMETER["False_Northing",0.0],"#,
    r#"PARAMETER["Central_Meridian",-76.58333333333333],PARAMETER["Scale_Factor",0.9999375],"#,
    r#"PARAMETER["Latitude_Of_Origin",40.0],UNIT["Foot_US",0.3048006096012192]]"#
);

/// WKT1 (GDAL) for EPSG:26918, as pyproj 3.7.2 `CRS.from_epsg(26918).to_wkt("WKT1_GDAL")` writes it.
const GDAL_26918: &str = concat!(
    r#"PROJCS["NAD83 / UTM zone 18N",GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980","#,
    r#"6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6269"]],PRIMEM["Greenwich",0,"#,
    r#"AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],"#,
    r#"AUTHORITY["EPSG","4269"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],"#,
    r#"PARAMETER["central_meridian",-75],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],"#,
    r#"PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],"#,
    r#"AXIS["Northing",NORTH],AUTHORITY["EPSG","26918"]]"#
);

/// WKT2 for EPSG:5070 as pyproj 3.7.2 writes it (USAGE shortened).
pub(crate) const WKT2_5070: &str = concat!(
    r#"PROJCRS["NAD83 / Conus Albers",BASEGEOGCRS["NAD83",DATUM["North American Datum 1983","#,
    r#"ELLIPSOID["GRS 1980",6378137,298.257222101,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,"#,
    r#"ANGLEUNIT["degree",0.0174532925199433]],ID["EPSG",4269]],CONVERSION["Conus Albers","#,
    r#"METHOD["Albers Equal Area",ID["EPSG",9822]],PARAMETER["Latitude of false origin",23,"#,
    r#"ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8821]],PARAMETER["Longitude of false origin",-96,"#,
    r#"ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8822]],PARAMETER["Latitude of 1st standard parallel","#,
    r#"29.5,ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8823]],PARAMETER["Latitude of 2nd standard "#,
    r#"parallel",45.5,ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8824]],PARAMETER["Easting at false "#,
    r#"origin",0,LENGTHUNIT["metre",1],ID["EPSG",8826]],PARAMETER["Northing at false origin",0,"#,
    r#"LENGTHUNIT["metre",1],ID["EPSG",8827]]],CS[Cartesian,2],AXIS["easting (X)",east,ORDER[1],"#,
    r#"LENGTHUNIT["metre",1]],AXIS["northing (Y)",north,ORDER[2],LENGTHUNIT["metre",1]],"#,
    r#"USAGE[SCOPE["Data analysis."],AREA["United States (USA) - CONUS onshore."],"#,
    r#"BBOX[24.41,-124.79,49.38,-66.91]],ID["EPSG",5070]]"#
);

/// ESRI WKT as pyproj 3.7.2 `to_wkt("WKT1_ESRI")` writes it, by EPSG code.
pub(crate) fn esri(code: u32) -> &'static str {
    match code {
        4269 => concat!(
            r#"GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,"#,
            r#"298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#
        ),
        26918 => concat!(
            r#"PROJCS["NAD_1983_UTM_Zone_18N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983","#,
            r#"SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
            r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#,
            r#"PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],"#,
            r#"PARAMETER["Central_Meridian",-75.0],PARAMETER["Scale_Factor",0.9996],"#,
            r#"PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#
        ),
        3857 => concat!(
            r#"PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984","#,
            r#"SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],"#,
            r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator_Auxiliary_Sphere"],"#,
            r#"PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",0.0],"#,
            r#"PARAMETER["Standard_Parallel_1",0.0],PARAMETER["Auxiliary_Sphere_Type",0.0],UNIT["Meter",1.0]]"#
        ),
        2263 => concat!(
            r#"PROJCS["NAD_1983_StatePlane_New_York_Long_Island_FIPS_3104_Feet",GEOGCS["GCS_North_American_1983","#,
            r#"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],"#,
            r#"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#,
            r#"PARAMETER["False_Easting",984250.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-74.0],"#,
            r#"PARAMETER["Standard_Parallel_1",41.0333333333333],PARAMETER["Standard_Parallel_2",40.6666666666667],"#,
            r#"PARAMETER["Latitude_Of_Origin",40.1666666666667],UNIT["US survey foot",0.304800609601219]]"#
        ),
        2265 => concat!(
            r#"PROJCS["NAD_1983_StatePlane_North_Dakota_North_FIPS_3301_Feet_Intl",GEOGCS["GCS_North_American_1983","#,
            r#"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],"#,
            r#"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#,
            r#"PARAMETER["False_Easting",1968503.937],PARAMETER["False_Northing",0.0],"#,
            r#"PARAMETER["Central_Meridian",-100.5],PARAMETER["Standard_Parallel_1",48.7333333333333],"#,
            r#"PARAMETER["Standard_Parallel_2",47.4333333333333],PARAMETER["Latitude_Of_Origin",47.0],"#,
            r#"UNIT["foot",0.3048]]"#
        ),
        6538 => concat!(
            r#"PROJCS["NAD_1983_2011_StatePlane_New_York_Long_Island_FIPS_3104",GEOGCS["GCS_NAD_1983_2011","#,
            r#"DATUM["D_NAD_1983_2011",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
            r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#,
            r#"PARAMETER["False_Easting",300000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-74.0],"#,
            r#"PARAMETER["Standard_Parallel_1",41.0333333333333],PARAMETER["Standard_Parallel_2",40.6666666666667],"#,
            r#"PARAMETER["Latitude_Of_Origin",40.1666666666667],UNIT["Meter",1.0]]"#
        ),
        _ => unreachable!("no ESRI fixture for {code}"),
    }
}

/// The same WKT under a name no table knows, so that only the parameter translation can understand it.
pub(crate) fn renamed(wkt: &str) -> String {
    let name = wkt.split('"').nth(1).unwrap();
    wkt.replacen(name, "County_Custom_Grid", 1)
}

fn epsg(text: &str) -> Option<u32> {
    Crs::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).epsg()
}

fn message(text: &str) -> String {
    match Crs::parse(text) {
        Err(Error::Crs { message, .. }) => message,
        other => panic!("{text}: expected a CRS error, got {other:?}"),
    }
}

#[test]
fn authority_codes_in_all_their_spellings() {
    for text in [
        "EPSG:2261",
        "epsg:2261",
        " EPSG:2261 ",
        "urn:ogc:def:crs:EPSG::2261",
        "urn:ogc:def:crs:EPSG:9.8:2261",
        "http://www.opengis.net/def/crs/EPSG/0/2261",
        "2261",
        "+init=epsg:2261",
    ] {
        assert_eq!(epsg(text), Some(2261), "{text}");
    }
    for text in ["OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"]
    {
        assert_eq!(epsg(text), Some(4326), "{text}");
    }
    assert_eq!(epsg("EPSG:900913"), Some(3857));
    assert_eq!(epsg("ESRI:102100"), Some(3857));
}

#[test]
fn unusable_input_says_what_to_do() {
    assert!(message("").contains("--crs EPSG:"));
    assert!(message("EPSG:99999").contains("PROJ string"));
    assert!(message("EPSG:abc").contains("--crs EPSG:"));
    assert!(message("hello").contains("--crs EPSG:"));
    assert!(message(r#"{"type":"ProjectedCRS"}"#).contains("PROJJSON"));
    assert!(message("EPSG:4978").contains("geocentric"));
    assert!(message("EPSG:4267").contains("NAD83"), "NAD27 needs grids: {}", message("EPSG:4267"));
    assert!(message("+proj=nonsense +ellps=GRS80").contains("--crs EPSG:"));
    assert!(message("+proj=tmerc +units=furlong").contains("furlong"));
    assert!(message(r#"PROJCS["x",GEOGCS["g""#).contains("--crs EPSG:"));
    assert!(message(r#"VERT_CS["NAVD88",VERT_DATUM["x",2005]]"#).contains("--crs EPSG:"));
}

#[test]
fn parse_from_names_the_file() {
    let err = Crs::parse_from("parcels.prj", "LOCAL_CS[\"x\"]").unwrap_err().to_string();
    assert!(err.starts_with("parcels.prj: "), "{err}");
}

#[test]
fn proj_strings_are_kept_and_normalised() {
    let crs = Crs::parse("proj=utm +zone=18 +datum=NAD83").unwrap();
    assert_eq!(crs.def, CrsDef::Proj4("+proj=utm +zone=18 +datum=NAD83".into()));
    assert_eq!(crs.linear_unit().unwrap(), Some(LinearUnit::Metre));
}

#[test]
fn wkt_becomes_its_epsg_code_when_parameters_agree() {
    assert_eq!(epsg(ARCGIS_2261), Some(2261));
    assert_eq!(epsg(GDAL_26918), Some(26918));
    assert_eq!(epsg(WKT2_5070), Some(5070));
    for code in [4269, 26918, 3857, 2263, 2265, 6538] {
        assert_eq!(epsg(esri(code)), Some(code), "{}", esri(code));
    }
    let gcs_wgs84 = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]]"#;
    assert_eq!(epsg(gcs_wgs84), Some(4326));
    // A byte-order mark and a trailing newline, as some .prj writers leave them.
    assert_eq!(epsg(&format!("\u{feff}{ARCGIS_2261}\r\n")), Some(2261));
}

#[test]
fn wkt_with_unknown_names_is_translated() {
    // An authority code still identifies a renamed CRS.
    assert_eq!(epsg(&renamed(GDAL_26918)), Some(26918));
    for wkt in [renamed(ARCGIS_2261), renamed(esri(26918)), renamed(esri(3857))] {
        let crs = Crs::parse(&wkt).unwrap();
        assert!(matches!(crs.def, CrsDef::Wkt(_)), "{wkt}");
        assert_eq!(crs.short_name(), "WKT CRS \"County_Custom_Grid\"");
    }
    // Without the ID and under another name, WKT2 is translated from its parameters alone.
    let bare = renamed(WKT2_5070).replace(r#",ID["EPSG",5070]"#, "");
    let p = Crs::parse(&bare).unwrap().to_proj_string().unwrap();
    assert_eq!(
        p,
        "+proj=aea +lat_0=23 +lat_1=29.5 +lat_2=45.5 +lon_0=-96 +x_0=0 +y_0=0 +datum=NAD83 +units=m +no_defs"
    );
}

#[test]
fn a_misleading_name_does_not_win_over_the_parameters() {
    // Named New York Central, but with Long Island's parameters.
    let liar = esri(2263).replace("New_York_Long_Island_FIPS_3104", "New_York_Central_FIPS_3102");
    let crs = Crs::parse(&liar).unwrap();
    assert_eq!(crs.epsg(), None);
    assert!(crs.to_proj_string().unwrap().starts_with("+proj=lcc"));
}

#[test]
fn units_and_the_feet_requirement() {
    let unit = |t: &str| Crs::parse(t).unwrap().linear_unit().unwrap();
    assert_eq!(unit("EPSG:2261"), Some(LinearUnit::UsSurveyFoot));
    assert_eq!(unit(ARCGIS_2261), Some(LinearUnit::UsSurveyFoot));
    assert_eq!(unit(&renamed(ARCGIS_2261)), Some(LinearUnit::UsSurveyFoot));
    assert_eq!(unit(esri(2265)), Some(LinearUnit::InternationalFoot));
    assert_eq!(unit("EPSG:26918"), Some(LinearUnit::Metre));
    assert_eq!(unit("EPSG:4326"), None);
    assert!(Crs::wgs84().is_geographic().unwrap());

    assert_eq!(Crs::ny_central_ftus().require_feet().unwrap(), LinearUnit::UsSurveyFoot);
    assert!(
        (LinearUnit::UsSurveyFoot.to_metre() / LinearUnit::InternationalFoot.to_metre() - 1.000002).abs()
            < 1e-9
    );
    for bad in ["EPSG:4326", "EPSG:26918"] {
        match Crs::parse(bad).unwrap().require_feet() {
            Err(Error::Config(m)) => assert!(m.contains("EPSG:2261") && m.contains(bad), "{m}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn real_streamstats_prj_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/real/owasco-watershed-streamstats");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("SKIPPED real_streamstats_prj_files: {} is absent", dir.display());
        return;
    };
    let mut seen = 0;
    for entry in entries.flatten() {
        let prj = entry.path().join("globalwatershed.prj");
        if let Ok(text) = std::fs::read_to_string(&prj) {
            let crs = Crs::parse_from(&prj, &text).unwrap();
            assert_eq!(crs.epsg(), Some(4326), "{}", prj.display());
            seen += 1;
        }
    }
    assert!(seen > 0, "no globalwatershed.prj under {}", dir.display());
}

/// The CRS GeoPandas 1.x writes into GeoParquet for a layer read from `data/sample/parcels.prj`: PROJJSON
/// without an `id`.
const GEOPANDAS_PROJJSON: &str = r#"{"$schema": "https://proj.org/schemas/v0.7/projjson.schema.json", "type": "ProjectedCRS", "name": "NAD83 / New York Central (ftUS)", "base_crs": {"name": "NAD83", "datum": {"type": "GeodeticReferenceFrame", "name": "North American Datum 1983", "ellipsoid": {"name": "GRS 1980", "semi_major_axis": 6378137, "inverse_flattening": 298.257222101}, "id": {"authority": "EPSG", "code": 6269}}, "coordinate_system": {"subtype": "ellipsoidal", "axis": [{"name": "Longitude", "abbreviation": "lon", "direction": "east", "unit": {"type": "AngularUnit", "name": "Degree", "conversion_factor": 0.0174532925199433}}, {"name": "Latitude", "abbreviation": "lat", "direction": "north", "unit": {"type": "AngularUnit", "name": "Degree", "conversion_factor": 0.0174532925199433}}]}}, "conversion": {"name": "unnamed", "method": {"name": "Transverse Mercator", "id": {"authority": "EPSG", "code": 9807}}, "parameters": [{"name": "Latitude of natural origin", "value": 40, "unit": {"type": "AngularUnit", "name": "Degree", "conversion_factor": 0.0174532925199433}, "id": {"authority": "EPSG", "code": 8801}}, {"name": "Longitude of natural origin", "value": -76.5833333333333, "unit": {"type": "AngularUnit", "name": "Degree", "conversion_factor": 0.0174532925199433}, "id": {"authority": "EPSG", "code": 8802}}, {"name": "Scale factor at natural origin", "value": 0.9999375, "unit": "unity", "id": {"authority": "EPSG", "code": 8805}}, {"name": "False easting", "value": 820208.333333333, "unit": {"type": "LinearUnit", "name": "US survey foot", "conversion_factor": 0.304800609601219}, "id": {"authority": "EPSG", "code": 8806}}, {"name": "False northing", "value": 0, "unit": {"type": "LinearUnit", "name": "US survey foot", "conversion_factor": 0.304800609601219}, "id": {"authority": "EPSG", "code": 8807}}]}, "coordinate_system": {"subtype": "Cartesian", "axis": [{"name": "Easting", "abbreviation": "", "direction": "east", "unit": {"type": "LinearUnit", "name": "US survey foot", "conversion_factor": 0.304800609601219, "id": {"authority": "EPSG", "code": 9003}}}, {"name": "Northing", "abbreviation": "", "direction": "north", "unit": {"type": "LinearUnit", "name": "US survey foot", "conversion_factor": 0.304800609601219, "id": {"authority": "EPSG", "code": 9003}}}]}}"#;

#[test]
fn projjson_without_an_id_is_read_as_the_prj_it_came_from() {
    let prj =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample/parcels.prj")).unwrap();
    // data/sample/README.md: the sample is in NAD83 / New York Central (ftUS), EPSG:2261.
    assert_eq!(Crs::parse(&prj).unwrap().epsg(), Some(2261));
    assert_eq!(Crs::parse(GEOPANDAS_PROJJSON).unwrap().epsg(), Some(2261));
    // Under a name of its own, the same parameters: a CRS of its own that puts points where EPSG:2261 does.
    let renamed = GEOPANDAS_PROJJSON.replace("NAD83 / New York Central (ftUS)", "County grid");
    let crs = Crs::parse(&renamed).unwrap();
    assert_eq!(crs.epsg(), None);
    assert_eq!(crs.linear_unit().unwrap(), Some(LinearUnit::UsSurveyFoot));
    assert!(same_crs(epsg_proj4(2261).unwrap(), &crs.to_proj_string().unwrap()), "{crs:?}");
    // An id of OGC's CRS84 is WGS 84 longitude/latitude; an EPSG id that the parameters contradict is not taken.
    let crs84 = r#"{"type": "GeographicCRS", "name": "WGS 84 (CRS84)", "datum": {"name": "World Geodetic System 1984",
        "ellipsoid": {"name": "WGS 84", "semi_major_axis": 6378137, "inverse_flattening": 298.257223563}},
        "coordinate_system": {"subtype": "ellipsoidal", "axis": [{"name": "Longitude", "direction": "east",
        "unit": "degree"}, {"name": "Latitude", "direction": "north", "unit": "degree"}]},
        "id": {"authority": "OGC", "code": "CRS84"}}"#;
    assert_eq!(Crs::parse(crs84).unwrap(), Crs::wgs84());
    let lying = renamed.replacen(
        "\"type\": \"ProjectedCRS\",",
        "\"type\": \"ProjectedCRS\", \"id\": {\"authority\": \"EPSG\", \"code\": 32618},",
        1,
    );
    assert_ne!(Crs::parse(&lying).unwrap().epsg(), Some(32618));
}

//! FlatGeobuf files built here by a small FlatBuffers writer after the specification's schema
//! (`header.fbs`, `feature.fbs`), independently of the reader: the layout, then the bounds.

use geo::{Area, Geometry};

use super::*;

/// A field of a table being built.
enum F {
    U8(u8),
    U16(u16),
    I32(i32),
    U64(u64),
    /// A vector's bytes and its element count (strings and byte vectors too).
    Vector(Vec<u8>, u32),
    Table(Built),
    Tables(Vec<Built>),
}

/// A table serialised on its own: its bytes and where the table starts in them. Every offset inside is
/// relative, so it can be placed anywhere.
#[derive(Clone)]
struct Built(Vec<u8>, usize);

fn table(fields: Vec<(usize, F)>) -> Built {
    let slots = fields.iter().map(|(id, _)| id + 1).max().unwrap_or(0);
    let mut inline = vec![0u8; 4];
    let mut offsets = vec![0u16; slots];
    let mut children: Vec<(usize, F)> = Vec::new();
    for (id, field) in fields {
        offsets[id] = inline.len() as u16;
        match field {
            F::U8(v) => inline.push(v),
            F::U16(v) => inline.extend(v.to_le_bytes()),
            F::I32(v) => inline.extend(v.to_le_bytes()),
            F::U64(v) => inline.extend(v.to_le_bytes()),
            other => {
                children.push((inline.len(), other));
                inline.extend([0; 4]);
            }
        }
    }
    let mut vtable = Vec::new();
    vtable.extend((4 + 2 * slots as u16).to_le_bytes());
    vtable.extend((inline.len() as u16).to_le_bytes());
    offsets.iter().for_each(|o| vtable.extend(o.to_le_bytes()));
    let start = vtable.len();
    let mut out = vtable;
    inline[..4].copy_from_slice(&(start as i32).to_le_bytes());
    out.extend(inline);
    for (at, child) in children {
        let slot = start + at;
        let target = match child {
            F::Vector(body, len) => {
                let target = out.len();
                out.extend(len.to_le_bytes());
                out.extend(body);
                target
            }
            F::Table(Built(bytes, pos)) => {
                let target = out.len() + pos;
                out.extend(bytes);
                target
            }
            F::Tables(tables) => {
                let target = out.len();
                out.extend((tables.len() as u32).to_le_bytes());
                let slots = out.len();
                out.extend(vec![0u8; 4 * tables.len()]);
                for (i, Built(bytes, pos)) in tables.into_iter().enumerate() {
                    let at = slots + 4 * i;
                    let offset = (out.len() + pos - at) as u32;
                    out[at..at + 4].copy_from_slice(&offset.to_le_bytes());
                    out.extend(bytes);
                }
                target
            }
            _ => unreachable!(),
        };
        out[slot..slot + 4].copy_from_slice(&((target - slot) as u32).to_le_bytes());
    }
    Built(out, start)
}

/// A root buffer: the root table's offset, then the table.
fn root(built: Built) -> Vec<u8> {
    let mut out = ((4 + built.1) as u32).to_le_bytes().to_vec();
    out.extend(built.0);
    out
}

fn string(s: &str) -> F {
    F::Vector(s.as_bytes().to_vec(), s.len() as u32)
}

fn doubles(values: &[f64]) -> F {
    F::Vector(values.iter().flat_map(|v| v.to_le_bytes()).collect(), values.len() as u32)
}

fn uints(values: &[u32]) -> F {
    F::Vector(values.iter().flat_map(|v| v.to_le_bytes()).collect(), values.len() as u32)
}

/// Properties: column 0 a string, column 1 a double.
fn properties(id: &str, acres: f64) -> F {
    let mut b = 0u16.to_le_bytes().to_vec();
    b.extend((id.len() as u32).to_le_bytes());
    b.extend(id.as_bytes());
    b.extend(1u16.to_le_bytes());
    b.extend(acres.to_le_bytes());
    let len = b.len() as u32;
    F::Vector(b, len)
}

/// A file of `features` (each a geometry table and its properties), of geometry type `kind`, in EPSG:2261,
/// with an index of node size 16 when `indexed`.
fn file(kind: u8, features: Vec<(Built, F)>, indexed: bool) -> Vec<u8> {
    let columns = vec![
        table(vec![(0, string("PRINT_KEY")), (1, F::U8(11))]),
        table(vec![(0, string("ACRES")), (1, F::U8(10))]),
    ];
    let crs = table(vec![(0, string("EPSG")), (1, F::I32(2261))]);
    let count = features.len() as u64;
    let header = root(table(vec![
        (2, F::U8(kind)),
        (7, F::Tables(columns)),
        (8, F::U64(count)),
        (9, F::U16(if indexed { 16 } else { 0 })),
        (10, F::Table(crs)),
    ]));
    let mut out = b"fgb\x03fgb\x01".to_vec();
    out.extend((header.len() as u32).to_le_bytes());
    out.extend(header);
    if indexed {
        out.extend(vec![0u8; index_size(count, 16).unwrap() as usize]);
    }
    for (geometry, props) in features {
        let feature = root(table(vec![(0, F::Table(geometry)), (1, props)]));
        out.extend((feature.len() as u32).to_le_bytes());
        out.extend(feature);
    }
    out
}

/// A 10 × 10 square with a 2 × 2 hole, as one polygon's rings.
fn holed_square() -> Built {
    let xy = [0., 0., 0., 10., 10., 10., 10., 0., 0., 0., 4., 4., 6., 4., 6., 6., 4., 6., 4., 4.];
    table(vec![(0, uints(&[5, 10])), (1, doubles(&xy))])
}

fn unit_square(x: f64) -> Built {
    table(vec![(1, doubles(&[x, 0., x, 1., x + 1., 1., x + 1., 0., x, 0.]))])
}

fn write(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lakeshore-fgb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn two_parcels(indexed: bool) -> Vec<u8> {
    let multi = table(vec![
        (6, F::U8(feature::kind::MULTI_POLYGON)),
        (7, F::Tables(vec![holed_square(), unit_square(20.)])),
    ]);
    let plain = table(vec![
        (6, F::U8(feature::kind::POLYGON)),
        (1, doubles(&[0., 0., 0., 1., 1., 1., 1., 0., 0., 0.])),
    ]);
    file(
        feature::kind::UNKNOWN,
        vec![(multi, properties("12.34-1-5", 1.5)), (plain, properties(" 7 ", 2.0))],
        indexed,
    )
}

#[test]
fn features_are_read_in_file_order_past_the_index_with_their_columns() {
    for indexed in [false, true] {
        let path = write(&format!("two-{indexed}.fgb"), &two_parcels(indexed));
        let (layer, problems) = read(&path, &ReadOptions::default()).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(layer.crs, Crs::parse("EPSG:2261").unwrap());
        assert_eq!(layer.fields, ["PRINT_KEY", "ACRES"]);
        let records: Vec<_> = layer.features.iter().map(|f| (f.record, f.values.clone())).collect();
        assert_eq!(
            records,
            [
                (1, vec![Value::Text("12.34-1-5".into()), Value::Number(1.5)]),
                (2, vec![Value::Text("7".into()), Value::Number(2.0)])
            ]
        );
        let Ok(Geometry::MultiPolygon(mp)) = &layer.features[0].geometry else { panic!() };
        let areas: Vec<f64> = mp.0.iter().map(|p| p.unsigned_area()).collect();
        assert_eq!(areas, [96.0, 1.0], "the hole is the second ring of the first part");
        assert!(matches!(layer.features[1].geometry, Ok(Geometry::Polygon(_))));
        let names = FlatGeobuf.field_names(&LayerAt { file: &path, member: None, path: &path }).unwrap();
        assert_eq!(names, layer.fields);
    }
}

#[test]
fn the_index_size_is_the_specifications() {
    // 1 item: the leaf and the root. 17 items of 16: 17 leaves, 2 nodes, the root.
    assert_eq!(index_size(1, 16), Some(2 * 40));
    assert_eq!(index_size(16, 16), Some(17 * 40));
    assert_eq!(index_size(17, 16), Some(20 * 40));
    assert_eq!(index_size(u64::MAX, 16), None);
}

#[test]
fn declared_sizes_beyond_the_file_refuse_it_naming_it() {
    let bytes = two_parcels(true);
    let read_err = |bytes: &[u8]| {
        let path = write("hostile.fgb", bytes);
        let err = read(&path, &ReadOptions::default()).map(|_| ()).unwrap_err().to_string();
        assert!(err.starts_with(&path.display().to_string()), "{err}");
        err
    };
    // The header's size.
    let mut hostile = bytes.clone();
    hostile[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(read_err(&hostile).contains("its header claims 4294967295 bytes"));
    // A feature count of 2^60.
    let header = u32_at(&bytes, 8).unwrap() as usize;
    let count_at = (12..12 + header).find(|&i| bytes[i..i + 8] == 2u64.to_le_bytes()).unwrap();
    let mut hostile = bytes.clone();
    hostile[count_at..count_at + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    assert!(read_err(&hostile).contains("declares 1152921504606846976 features"), "{}", read_err(&hostile));
    // The first feature's size.
    let first = 12 + header + index_size(2, 16).unwrap() as usize;
    let mut hostile = bytes.clone();
    hostile[first..first + 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    assert!(read_err(&hostile).contains("feature 1 claims 2147483647 bytes"));
    // Cut short inside the second feature.
    assert!(read_err(&bytes[..bytes.len() - 3]).contains("feature 2 claims"));
    assert!(read_err(&bytes[..first + 4 + u32_at(&bytes, first).unwrap() as usize])
        .contains("ends before feature 2"));
    assert!(read_err(b"fgb\x03fgb\x00").contains("too short"));
    // Bytes after the declared features: a count lowered by damage.
    let mut longer = bytes.clone();
    longer.extend([0; 9]);
    assert!(read_err(&longer).contains("holds 9 bytes after the 2 features its header declares"));
    assert!(read_err(b"fgb\x02fgb\x00\x04\0\0\0\0\0\0\0").contains("magic bytes"));
}

#[test]
fn a_damaged_feature_keeps_its_place_with_a_problem() {
    let mut bytes = two_parcels(false);
    let header = u32_at(&bytes, 8).unwrap() as usize;
    let first = 12 + header;
    let len = u32_at(&bytes, first).unwrap() as usize;
    // Every byte of the first feature's table but its root offset turned to 0xff: offsets and lengths far
    // outside it.
    bytes[first + 8..first + 4 + len].iter_mut().for_each(|b| *b = 0xff);
    let path = write("damaged.fgb", &bytes);
    let (layer, problems) = read(&path, &ReadOptions::default()).unwrap();
    assert_eq!(layer.features.len(), 2);
    assert!(layer.features[0].geometry.is_err());
    assert!(layer.features[1].geometry.is_ok());
    assert!(
        !problems.is_empty() && problems.iter().all(|p| p.location == Location::Record(1)),
        "{problems:?}"
    );
}

#[test]
fn properties_decode_by_column_type_and_refuse_what_they_cannot_hold() {
    let mut b = Vec::new();
    b.extend(0u16.to_le_bytes());
    b.push(1);
    b.extend(1u16.to_le_bytes());
    b.extend((-5i32).to_le_bytes());
    b.extend(2u16.to_le_bytes());
    b.extend(4u32.to_le_bytes());
    b.extend(b"2024");
    let types = [2, 5, 13];
    let values = feature::properties(&b[..b.len() - 1], &types);
    assert!(values.unwrap_err().contains("properties end after"));
    assert_eq!(
        feature::properties(&b, &types).unwrap(),
        [Value::Bool(true), Value::Number(-5.0), Value::Text("2024".into())]
    );
    assert!(feature::properties(&9u16.to_le_bytes(), &types).unwrap_err().contains("column 9 of 3"));
}

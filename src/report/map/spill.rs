//! The parcels of a static map too large to hold: each parcel's shape written, as its block comes, to a
//! scratch file of its class, and read back one shape at a time while its layer is drawn.
//!
//! A map of a state draws millions of parcels; their shapes held as `MultiPolygon`s take more memory than the
//! whole run. [`Spill`] keeps of each parcel only its position and the offset of its shape in its class's file
//! (16 bytes), and counts it for the legend ([`ClassCounts`]) when it is kept. The shapes are written exactly
//! (`f64`, little-endian), so the layers drawn from the files are the same pixels as from shapes held in
//! memory: each class's parcels are read back in order of position, whatever order the blocks came in.
//!
//! Writing and reading are two types: a [`Spill`] only takes parcels, and [`Spill::finish`] turns it into the
//! [`Spilled`] parcels, which only give them back ([`Spilled::class`]), their files forced out of their
//! buffers and in order of position.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use geo::{BoundingRect, Coord, LineString, MultiPolygon, Polygon, Rect};

use super::{in_view, ClassCounts, ParcelClass};
use crate::model::error::{Error, Result};
use crate::write::create_temp;

/// The read-back buffer: small, since a parcel added out of order costs a seek, which refills it.
const READ_BUFFER: usize = 64 << 10;

/// A scratch file's path, the file removed when it is dropped.
#[derive(Debug)]
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// One class's parcels being written: the scratch file and, for each parcel, its position and where its
/// shape starts.
#[derive(Debug)]
struct ClassWriter {
    file: BufWriter<File>,
    written: u64,
    index: Vec<(usize, u64)>,
    scratch: Scratch,
}

/// One class's parcels on disk, written and in order of position: the scratch file and, for each parcel, its
/// position and where its shape starts.
#[derive(Debug)]
pub struct ClassFile {
    file: File,
    index: Vec<(usize, u64)>,
    /// Held to remove the file with it.
    _scratch: Scratch,
}

impl ClassFile {
    /// How many parcels the file holds.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the file holds no parcel.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Calls `draw` with each shape of the file, in order of position. The file is read in one sweep when
    /// its parcels were added in that order; each parcel that was not is a seek. The error is the scratch
    /// file's.
    pub fn each_shape(&self, draw: &mut dyn FnMut(&MultiPolygon<f64>)) -> std::io::Result<()> {
        let mut reader = BufReader::with_capacity(READ_BUFFER, &self.file);
        let mut at = u64::MAX;
        let (mut shape, mut bytes) = (MultiPolygon(Vec::new()), Vec::new());
        for &(_, offset) in &self.index {
            if offset != at {
                reader.seek(SeekFrom::Start(offset))?;
            }
            at = offset + read_shape(&mut reader, &mut shape, &mut bytes)?;
            draw(&shape);
        }
        Ok(())
    }
}

/// The parcels of a map being spilled to scratch files beside an output, by class: written to, then
/// [`Spill::finish`]ed into the [`Spilled`] parcels that are drawn.
#[derive(Debug)]
pub struct Spill {
    beside: PathBuf,
    /// One file for each class of [`ParcelClass::ALL`], made when its first parcel comes.
    files: Vec<Option<ClassWriter>>,
    /// The area shown when it is known before the parcels (a town's frame): a parcel outside it is neither
    /// drawn nor counted. `None`: every parcel is in view.
    view: Option<[f64; 4]>,
    /// What the legend counts of the parcels kept.
    counts: ClassCounts,
    /// The bounds of the shapes kept.
    bounds: Option<Rect<f64>>,
    /// The parcels counted that have no shape.
    unmapped: u64,
}

impl Spill {
    /// An empty spill whose scratch files go beside `output`; `view` is the area the map shows when it is
    /// known before the parcels come.
    pub fn new(output: &Path, view: Option<[f64; 4]>) -> Spill {
        let files = ParcelClass::ALL.iter().map(|_| None).collect();
        let (counts, bounds) = (ClassCounts::default(), None);
        Spill { beside: output.to_path_buf(), files, view, counts, bounds, unmapped: 0 }
    }

    /// Keeps the parcel at position `at` drawn in `class`, of tier or status `of`, with its shape (`None`:
    /// counted, not drawn), unless its shape lies outside the view. Parcels are best added in order of
    /// position (each block's sorted): [`ClassFile::each_shape`] then reads each file in one sweep.
    pub fn add(
        &mut self,
        at: usize,
        shape: Option<&MultiPolygon<f64>>,
        class: ParcelClass,
        of: ParcelClass,
    ) -> Result<()> {
        let Some(shape) = shape else {
            self.counts.add(class, of);
            self.unmapped += 1;
            return Ok(());
        };
        // As a map of shapes held: a shape without bounds, or outside the view, is neither drawn nor counted.
        let view = self.view;
        let Some(r) = shape.bounding_rect().filter(|r| view.is_none_or(|v| in_view(v, Some(*r)))) else {
            return Ok(());
        };
        self.counts.add(class, of);
        self.bounds = Some(self.bounds.map_or(r, |b| union(b, r)));
        let slot = &mut self.files[class.index()];
        let file = match slot {
            Some(file) => file,
            None => {
                let (path, file) = create_temp(&self.beside, "shapes")?;
                slot.insert(ClassWriter {
                    file: BufWriter::with_capacity(1 << 20, file),
                    written: 0,
                    index: Vec::new(),
                    scratch: Scratch(path),
                })
            }
        };
        file.index.push((at, file.written));
        let written = write_shape(&mut file.file, shape).map_err(|e| Error::io(&file.scratch.0, e))?;
        file.written += written;
        Ok(())
    }

    /// Ends the writing: the files forced out of their buffers and each class's parcels put in order of
    /// position, ready to be read back.
    pub fn finish(self) -> Result<Spilled> {
        let Spill { files, counts, bounds, unmapped, .. } = self;
        let files = files
            .into_iter()
            .map(|slot| {
                let Some(ClassWriter { file, mut index, scratch, .. }) = slot else { return Ok(None) };
                let file = file.into_inner().map_err(|e| Error::io(&scratch.0, e.into_error()))?;
                index.sort_unstable_by_key(|&(at, _)| at);
                Ok(Some(ClassFile { file, index, _scratch: scratch }))
            })
            .collect::<Result<_>>()?;
        Ok(Spilled { files, counts, bounds, unmapped })
    }
}

/// The parcels of a map spilled to disk, written: each class's file, read back as its layer is drawn, and
/// what the legend and the frame need of them. The scratch files are removed when it is dropped.
#[derive(Debug)]
pub struct Spilled {
    /// The file of each class of [`ParcelClass::ALL`] that a parcel was kept in.
    files: Vec<Option<ClassFile>>,
    /// What the legend counts of the parcels kept.
    counts: ClassCounts,
    /// The bounds of the shapes kept.
    bounds: Option<Rect<f64>>,
    /// The parcels counted that have no shape.
    unmapped: u64,
}

impl Spilled {
    /// The file of `class`, if any parcel was kept in it.
    pub fn class(&self, class: ParcelClass) -> Option<&ClassFile> {
        self.files[class.index()].as_ref()
    }

    /// What the legend counts of the parcels kept.
    pub fn counts(&self) -> &ClassCounts {
        &self.counts
    }

    /// The bounds of the shapes kept, if any.
    pub fn bounds(&self) -> Option<Rect<f64>> {
        self.bounds
    }

    /// How many parcels kept have no shape.
    pub fn unmapped(&self) -> u64 {
        self.unmapped
    }
}

fn union(a: Rect<f64>, b: Rect<f64>) -> Rect<f64> {
    Rect::new(
        (a.min().x.min(b.min().x), a.min().y.min(b.min().y)),
        (a.max().x.max(b.max().x), a.max().y.max(b.max().y)),
    )
}

/// Writes `shape` (polygons, each its rings, each its points as `f64` pairs; counts as `u32`); the bytes
/// written.
fn write_shape(out: &mut impl Write, shape: &MultiPolygon<f64>) -> std::io::Result<u64> {
    let mut n = 4;
    out.write_all(&(shape.0.len() as u32).to_le_bytes())?;
    for polygon in &shape.0 {
        out.write_all(&(1 + polygon.interiors().len() as u32).to_le_bytes())?;
        n += 4;
        for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
            out.write_all(&(ring.0.len() as u32).to_le_bytes())?;
            for c in &ring.0 {
                out.write_all(&c.x.to_le_bytes())?;
                out.write_all(&c.y.to_le_bytes())?;
            }
            n += 4 + 16 * ring.0.len() as u64;
        }
    }
    Ok(n)
}

/// Reads a shape [`write_shape`] wrote into `shape`, each ring's points through `bytes` (a buffer kept from
/// ring to ring and shape to shape, rather than one made for each ring); the bytes read.
fn read_shape(
    input: &mut impl Read,
    shape: &mut MultiPolygon<f64>,
    bytes: &mut Vec<u8>,
) -> std::io::Result<u64> {
    let mut word = [0u8; 4];
    let mut count = |input: &mut dyn Read| -> std::io::Result<usize> {
        input.read_exact(&mut word)?;
        Ok(u32::from_le_bytes(word) as usize)
    };
    let mut ring = |input: &mut dyn Read, n: usize| -> std::io::Result<LineString<f64>> {
        bytes.resize(16 * n, 0);
        input.read_exact(bytes)?;
        let f = |b: &[u8]| f64::from_le_bytes(b.try_into().unwrap_or_default());
        Ok(LineString(bytes.chunks_exact(16).map(|p| Coord { x: f(&p[..8]), y: f(&p[8..]) }).collect()))
    };
    let mut read = 4;
    let polygons = count(input)?;
    shape.0.clear();
    for _ in 0..polygons {
        let rings = count(input)?;
        read += 4;
        let mut all = Vec::with_capacity(rings);
        for _ in 0..rings {
            let n = count(input)?;
            all.push(ring(input, n)?);
            read += 4 + 16 * n as u64;
        }
        let mut all = all.into_iter();
        let exterior = all.next().unwrap_or_else(|| LineString(Vec::new()));
        shape.0.push(Polygon::new(exterior, all.collect()));
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use geo::{polygon, MultiPolygon};

    use super::*;
    use crate::report::map::{render_png, render_svg, schedule_scene, MapInput};

    fn folder(name: &str) -> PathBuf {
        let dir = crate::scratch::root().join("spill").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn square(x: f64, y: f64, side: f64) -> MultiPolygon<f64> {
        MultiPolygon(vec![
            polygon![(x: x, y: y), (x: x + side, y: y), (x: x + side, y: y + side), (x: x, y: y + side)],
        ])
    }

    /// A lot with a hole and a second part, at coordinates no `f32` holds exactly.
    fn holed() -> MultiPolygon<f64> {
        let outer = polygon!(
            exterior: [(x: 0.1, y: 0.2), (x: 300.3, y: 0.2), (x: 300.3, y: 200.7), (x: 0.1, y: 200.7)],
            interiors: [[(x: 100.0, y: 50.0), (x: 150.0, y: 50.0), (x: 150.0, y: 90.000_000_001), (x: 100.0, y: 90.0)]],
        );
        MultiPolygon(vec![outer, square(1000.0 / 3.0, 10.0, 20.0).0.remove(0)])
    }

    #[test]
    fn shapes_come_back_exactly_in_order_of_position_whatever_order_they_came_in() {
        let dir = folder("order");
        let mut spill = Spill::new(&dir.join("map.png"), None);
        let (a, b, c) = (square(0.0, 0.0, 10.0), holed(), square(50.0, 50.0, 5.0));
        // Positions 7, 2, 5 arrive in that order; all one class.
        spill.add(7, Some(&a), ParcelClass::County, ParcelClass::County).unwrap();
        spill.add(2, Some(&b), ParcelClass::County, ParcelClass::County).unwrap();
        spill.add(5, Some(&c), ParcelClass::County, ParcelClass::County).unwrap();
        let spill = spill.finish().unwrap();
        let mut back = Vec::new();
        spill.class(ParcelClass::County).unwrap().each_shape(&mut |s| back.push(s.clone())).unwrap();
        assert_eq!(back, vec![b, c, a]);
        assert!(spill.class(ParcelClass::Lakefront).is_none());
    }

    /// A closed ring of `n` points (the last the first), at coordinates no `f32` holds exactly.
    fn ring(n: usize) -> LineString<f64> {
        let at = |i: usize| Coord { x: i as f64 / 3.0, y: (i * i) as f64 / 7.0 };
        LineString((0..n - 1).map(at).chain([at(0)]).collect())
    }

    #[test]
    fn shapes_with_rings_long_and_short_read_back_one_after_another_through_one_buffer() {
        let long = MultiPolygon(vec![Polygon::new(ring(40), vec![])]);
        let holed =
            MultiPolygon(vec![Polygon::new(ring(5), vec![ring(4), ring(12)]), Polygon::new(ring(6), vec![])]);
        let none = MultiPolygon(Vec::new());
        let shapes = [long, holed, none, square(1.0, 2.0, 3.0)];
        let mut bytes = Vec::new();
        for shape in &shapes {
            write_shape(&mut bytes, shape).unwrap();
        }
        let (mut input, mut buffer, mut back) = (&bytes[..], Vec::new(), MultiPolygon(Vec::new()));
        // Each shape: its polygon count, each polygon's ring count, each ring's point count (4 bytes each) and
        // its points (16 bytes each).
        let sizes = [
            4 + 4 + (4 + 16 * 40),
            4 + (4 + 3 * 4 + 16 * (5 + 4 + 12)) + (4 + 4 + 16 * 6),
            4,
            4 + 4 + 4 + 16 * 5,
        ];
        for (shape, size) in shapes.iter().zip(sizes) {
            assert_eq!(read_shape(&mut input, &mut back, &mut buffer).unwrap(), size);
            assert_eq!(&back, shape);
        }
        assert!(input.is_empty());
    }

    #[test]
    fn a_parcel_outside_the_view_is_neither_kept_nor_counted_and_one_without_a_shape_is_counted() {
        let dir = folder("view");
        let mut spill = Spill::new(&dir.join("map.png"), Some([0.0, 0.0, 100.0, 100.0]));
        spill.add(0, Some(&square(10.0, 10.0, 5.0)), ParcelClass::Overdue, ParcelClass::County).unwrap();
        spill.add(1, Some(&square(500.0, 500.0, 5.0)), ParcelClass::County, ParcelClass::County).unwrap();
        spill.add(2, None, ParcelClass::Failed, ParcelClass::Watershed).unwrap();
        let spill = spill.finish().unwrap();
        let counts = spill.counts();
        // One overdue parcel of the county tier, one failed of the watershed tier without a shape; the parcel
        // at (500, 500) is out of view.
        assert_eq!(counts.counts[ParcelClass::Overdue.index()], 1);
        assert_eq!(counts.counts[ParcelClass::Failed.index()], 1);
        assert_eq!(counts.counts[ParcelClass::County.index()], 0);
        assert_eq!(counts.apart[ParcelClass::County.index()], [1, 0]);
        assert_eq!(counts.apart[ParcelClass::Watershed.index()], [0, 1]);
        assert_eq!(spill.unmapped(), 1);
        assert_eq!(spill.bounds(), Some(Rect::new((10.0, 10.0), (15.0, 15.0))));
        assert_eq!(spill.class(ParcelClass::Overdue).map(ClassFile::len), Some(1));
        assert!(spill.class(ParcelClass::County).is_none());
    }

    #[test]
    fn the_scratch_files_are_removed_when_the_spill_is_dropped() {
        let dir = folder("removed");
        let mut spill = Spill::new(&dir.join("map.png"), None);
        spill.add(0, Some(&square(0.0, 0.0, 1.0)), ParcelClass::County, ParcelClass::County).unwrap();
        spill.add(1, Some(&square(2.0, 0.0, 1.0)), ParcelClass::Lakefront, ParcelClass::Lakefront).unwrap();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        drop(spill.finish().unwrap());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }

    /// The same parcels drawn from memory, in order of position, and from a spill they came to out of order:
    /// the same image, pixel for pixel, and the same SVG, byte for byte.
    #[test]
    fn a_map_drawn_from_disk_is_the_map_drawn_from_memory() {
        let dir = folder("same");
        let classes =
            [ParcelClass::Lakefront, ParcelClass::Overdue, ParcelClass::County, ParcelClass::Failed];
        let of = |i: usize| if i % 4 == 1 || i % 4 == 3 { ParcelClass::County } else { classes[i % 4] };
        // Overlapping squares, so the order of drawing shows in the pixels.
        let shapes: Vec<MultiPolygon<f64>> =
            (0..40).map(|i| square(f64::from(i % 8) * 70.0, f64::from(i / 8) * 70.0, 90.0)).collect();
        let held = MapInput {
            parcels: shapes.iter().enumerate().map(|(i, s)| (Cow::Borrowed(s), classes[i % 4])).collect(),
            set_apart_from: (0..40).map(of).collect(),
            title: "Same".into(),
            ..MapInput::default()
        };
        let mut spill = Spill::new(&dir.join("map.png"), None);
        for i in (0..40).rev() {
            spill.add(i, Some(&shapes[i]), classes[i % 4], of(i)).unwrap();
        }
        let spilled = MapInput {
            spilled: Some(std::sync::Arc::new(spill.finish().unwrap())),
            title: "Same".into(),
            ..MapInput::default()
        };
        let (a, b) = (schedule_scene(&held), schedule_scene(&spilled));
        assert_eq!(a.legend, b.legend);
        assert_eq!(a.subtitle, b.subtitle);
        assert_eq!(render_png(&a, 400, 300).unwrap(), render_png(&b, 400, 300).unwrap());
        assert_eq!(render_svg(&a, 400, 300), render_svg(&b, 400, 300));
    }
}

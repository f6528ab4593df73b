//! A GeoJSON geometry object read straight into `geo` types.
//!
//! The reading follows the `geojson` crate's, which the reader used before: the nesting of `coordinates` is
//! decided by its first element (so `[]` is an empty list of positions at any level), `type` must be one of
//! the seven RFC 7946 names, `bbox` an array of numbers, a `GeometryCollection` needs `geometries` and the
//! others `coordinates` of their own nesting, and no member may appear twice. A geometry that breaks a rule is
//! unreadable; its JSON is still read to the end and checked, so a fault in it is never mistaken for the end
//! of the feature. A position needs an x and a y (z and beyond are ignored).

use geo::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon, Point,
    Polygon,
};

use super::json::{Check, Cursor, Parse};

/// Why a geometry is unusable, before the reader words it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Bad {
    /// `null`, or no geometry member.
    Missing,
    /// Not a geometry the rules above accept; says which rule.
    Unreadable(String),
    /// A position with fewer than two numbers.
    ShortPosition,
}

/// The geometry at the cursor (an object or `null`). `scratch` is working room for positions.
pub(super) fn read(cur: &mut Cursor, scratch: &mut Vec<Coord>) -> Parse<Result<Geometry<f64>, Bad>> {
    if cur.peek() == Some(b'n') {
        cur.null_or_bool()?;
        return Ok(Err(Bad::Missing));
    }
    let mut reader = Reader { scratch, problem: None, short: false };
    let geometry = reader.geometry(cur)?;
    Ok(match (reader.problem, reader.short) {
        (Some(why), _) => Err(Bad::Unreadable(why)),
        (None, true) => Err(Bad::ShortPosition),
        (None, false) => geometry.ok_or_else(|| Bad::Unreadable("no geometry".into())),
    })
}

/// The seven geometry types.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Point,
    LineString,
    Polygon,
    MultiPoint,
    MultiLineString,
    MultiPolygon,
    GeometryCollection,
}

impl Kind {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "Point" => Kind::Point,
            "LineString" => Kind::LineString,
            "Polygon" => Kind::Polygon,
            "MultiPoint" => Kind::MultiPoint,
            "MultiLineString" => Kind::MultiLineString,
            "MultiPolygon" => Kind::MultiPolygon,
            "GeometryCollection" => Kind::GeometryCollection,
            _ => return None,
        })
    }
}

/// A `coordinates` value, by the nesting its first elements give it.
enum Coords {
    /// One position: `[x, y, ...]` and how many numbers it had.
    Position(Coord, usize),
    /// A list of positions (a line, a ring, the points of a multipoint).
    Positions(Vec<Coord>),
    /// A list of lists of positions (a polygon's rings, the lines of a multiline).
    Lists(Vec<Vec<Coord>>),
    /// A list of polygons.
    Polygons(Vec<Vec<Vec<Coord>>>),
}

impl Coords {
    fn nesting(&self) -> usize {
        match self {
            Coords::Position(..) => 0,
            Coords::Positions(_) => 1,
            Coords::Lists(_) => 2,
            Coords::Polygons(_) => 3,
        }
    }
}

/// One geometry being read: the first rule broken, and whether a position was short.
struct Reader<'s> {
    scratch: &'s mut Vec<Coord>,
    problem: Option<String>,
    short: bool,
}

impl Reader<'_> {
    /// Records that a rule is broken (the first one is the one reported).
    fn bad(&mut self, why: impl FnOnce() -> String) {
        if self.problem.is_none() {
            self.problem = Some(why());
        }
    }

    /// Skips a value that is not what the geometry needed there, saying so.
    fn wrong(&mut self, cur: &mut Cursor, why: &str) -> Parse<()> {
        self.bad(|| why.to_string());
        cur.skip(Check::Full)
    }

    /// A geometry object; `None` when a rule is broken (and recorded).
    fn geometry(&mut self, cur: &mut Cursor) -> Parse<Option<Geometry<f64>>> {
        if cur.peek() != Some(b'{') {
            self.wrong(cur, "a geometry must be a JSON object")?;
            return Ok(None);
        }
        cur.object("")?;
        let (mut kind, mut coords, mut geometries, mut coords_short) = (None, None, None, false);
        let (mut seen_type, mut seen_coords, mut seen_geometries, mut seen_bbox) =
            (false, false, false, false);
        let mut first = true;
        while let Some(key) = cur.key(&mut first)? {
            let seen = match &*key {
                b"type" => &mut seen_type,
                b"coordinates" => &mut seen_coords,
                b"geometries" => &mut seen_geometries,
                b"bbox" => &mut seen_bbox,
                _ => {
                    cur.skip(Check::Full)?;
                    continue;
                }
            };
            if std::mem::replace(seen, true) {
                self.bad(|| format!("duplicate member `{}`", String::from_utf8_lossy(&key)));
            }
            match &*key {
                b"type" if cur.peek() == Some(b'"') => {
                    let name = cur.string()?;
                    kind = Kind::of(&name);
                    if kind.is_none() {
                        self.bad(|| format!("unknown geometry type \"{name}\""));
                    }
                }
                b"type" => self.wrong(cur, "the geometry type is not a string")?,
                _ if cur.peek() == Some(b'n') => {
                    cur.null_or_bool()?;
                }
                b"coordinates" if cur.peek() == Some(b'[') => {
                    // A short position counts only if the coordinates are this geometry's shape, which they
                    // are not in a collection.
                    let outer = std::mem::replace(&mut self.short, false);
                    coords = Some(self.coords(cur)?);
                    coords_short = std::mem::replace(&mut self.short, outer);
                }
                b"coordinates" => self.wrong(cur, "coordinates must be an array")?,
                b"geometries" if cur.peek() == Some(b'[') => geometries = Some(self.collection(cur)?),
                b"geometries" => self.wrong(cur, "geometries must be an array")?,
                _ if cur.peek() == Some(b'[') => self.numbers(cur, "the bbox must be an array of numbers")?,
                _ => self.wrong(cur, "the bbox must be an array of numbers")?,
            }
        }
        if !seen_type {
            self.bad(|| "missing member `type`".into());
        }
        if self.problem.is_some() {
            return Ok(None);
        }
        let Some(kind) = kind else { return Ok(None) };
        self.short |= coords_short && kind != Kind::GeometryCollection;
        let geometry = assemble(kind, coords, geometries);
        if let Err(why) = &geometry {
            self.bad(|| why.clone());
        }
        Ok(geometry.ok())
    }

    /// The elements of a `geometries` array, each a geometry.
    fn collection(&mut self, cur: &mut Cursor) -> Parse<Vec<Geometry<f64>>> {
        cur.array("")?;
        let mut out = Vec::new();
        let mut first = true;
        while cur.element(&mut first)? {
            if let Some(g) = self.geometry(cur)? {
                out.push(g);
            }
        }
        Ok(out)
    }

    /// An array whose elements must all be numbers (a bbox).
    fn numbers(&mut self, cur: &mut Cursor, why: &str) -> Parse<()> {
        cur.array("")?;
        let mut first = true;
        while cur.element(&mut first)? {
            match cur.peek() {
                Some(b'-' | b'0'..=b'9') => {
                    cur.number()?;
                }
                _ => self.wrong(cur, why)?,
            }
        }
        Ok(())
    }

    /// A `coordinates` array, its nesting decided by its first element.
    fn coords(&mut self, cur: &mut Cursor) -> Parse<Coords> {
        cur.array("")?;
        let mut first = true;
        if !cur.element(&mut first)? {
            return Ok(Coords::Positions(Vec::new()));
        }
        match cur.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let x = cur.number()?;
                let (coord, count) = self.position_rest(cur, x, &mut first)?;
                Ok(Coords::Position(coord, count))
            }
            Some(b'[') => match self.coords(cur)? {
                Coords::Position(coord, count) => {
                    self.scratch.clear();
                    self.note_position(coord, count);
                    while cur.element(&mut first)? {
                        let (coord, count) = self.position(cur)?;
                        self.note_position(coord, count);
                    }
                    Ok(Coords::Positions(self.scratch.as_slice().to_vec()))
                }
                Coords::Positions(line) => {
                    let mut lists = vec![line];
                    while cur.element(&mut first)? {
                        lists.push(self.positions(cur)?);
                    }
                    Ok(Coords::Lists(lists))
                }
                Coords::Lists(polygon) => {
                    let mut polygons = vec![polygon];
                    while cur.element(&mut first)? {
                        polygons.push(self.lists(cur)?);
                    }
                    Ok(Coords::Polygons(polygons))
                }
                deep @ Coords::Polygons(_) => {
                    self.bad(|| "coordinates nested too deep".into());
                    while cur.element(&mut first)? {
                        cur.skip(Check::Full)?;
                    }
                    Ok(deep)
                }
            },
            _ => {
                self.wrong(cur, "coordinates hold something other than numbers and arrays")?;
                while cur.element(&mut first)? {
                    cur.skip(Check::Full)?;
                }
                Ok(Coords::Positions(Vec::new()))
            }
        }
    }

    /// Adds a position to the scratch list, noting a short one.
    fn note_position(&mut self, coord: Coord, count: usize) {
        self.short |= count < 2;
        self.scratch.push(coord);
    }

    /// A position: an array of numbers.
    fn position(&mut self, cur: &mut Cursor) -> Parse<(Coord, usize)> {
        if cur.peek() != Some(b'[') {
            self.wrong(cur, "a position must be an array of numbers")?;
            return Ok((Coord { x: 0.0, y: 0.0 }, 2));
        }
        cur.array("")?;
        let mut first = true;
        if !cur.element(&mut first)? {
            return Ok((Coord { x: f64::NAN, y: f64::NAN }, 0));
        }
        match cur.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let x = cur.number()?;
                self.position_rest(cur, x, &mut first)
            }
            _ => {
                self.wrong(cur, "a position must be an array of numbers")?;
                while cur.element(&mut first)? {
                    cur.skip(Check::Full)?;
                }
                Ok((Coord { x: 0.0, y: 0.0 }, 2))
            }
        }
    }

    /// The numbers of a position after its first, `x`.
    fn position_rest(&mut self, cur: &mut Cursor, x: f64, first: &mut bool) -> Parse<(Coord, usize)> {
        let mut coord = Coord { x, y: f64::NAN };
        let mut count = 1;
        while cur.element(first)? {
            match cur.peek() {
                Some(b'-' | b'0'..=b'9') => {
                    let v = cur.number()?;
                    if count == 1 {
                        coord.y = v;
                    }
                    count += 1;
                }
                _ => self.wrong(cur, "a position must be an array of numbers")?,
            }
        }
        Ok((coord, count))
    }

    /// A list of positions.
    fn positions(&mut self, cur: &mut Cursor) -> Parse<Vec<Coord>> {
        if cur.peek() != Some(b'[') {
            self.wrong(cur, "expected an array of positions")?;
            return Ok(Vec::new());
        }
        cur.array("")?;
        self.scratch.clear();
        let mut first = true;
        while cur.element(&mut first)? {
            let (coord, count) = self.position(cur)?;
            self.note_position(coord, count);
        }
        Ok(self.scratch.as_slice().to_vec())
    }

    /// A list of lists of positions.
    fn lists(&mut self, cur: &mut Cursor) -> Parse<Vec<Vec<Coord>>> {
        if cur.peek() != Some(b'[') {
            self.wrong(cur, "expected an array of arrays of positions")?;
            return Ok(Vec::new());
        }
        cur.array("")?;
        let mut lists = Vec::new();
        let mut first = true;
        while cur.element(&mut first)? {
            lists.push(self.positions(cur)?);
        }
        Ok(lists)
    }
}

/// The geometry of `kind` from its members, or why they do not make one.
fn assemble(
    kind: Kind,
    coords: Option<Coords>,
    geometries: Option<Vec<Geometry<f64>>>,
) -> Result<Geometry<f64>, String> {
    use Coords as C;
    let empty = |c: &Coords| matches!(c, C::Positions(p) if p.is_empty());
    Ok(match (kind, coords, geometries) {
        (Kind::Point, Some(C::Position(coord, count)), None) if count >= 2 => Point(coord).into(),
        (Kind::Point, Some(C::Position(_, count)), None) => {
            return Err(format!("a Point position needs at least 2 numbers, not {count}"))
        }
        (Kind::Point, Some(c), None) if empty(&c) => {
            return Err("a Point position needs at least 2 numbers".into())
        }
        (Kind::LineString, Some(C::Positions(p)), None) => LineString(p).into(),
        (Kind::MultiPoint, Some(C::Positions(p)), None) => MultiPoint(exact(p, Point)).into(),
        (Kind::Polygon, Some(C::Lists(rings)), None) => polygon(rings).into(),
        (Kind::Polygon, Some(c), None) if empty(&c) => polygon(Vec::new()).into(),
        (Kind::MultiLineString, Some(C::Lists(lines)), None) => {
            MultiLineString(exact(lines, LineString)).into()
        }
        (Kind::MultiLineString, Some(c), None) if empty(&c) => MultiLineString(Vec::new()).into(),
        (Kind::MultiPolygon, Some(C::Polygons(polygons)), None) => {
            MultiPolygon(exact(polygons, polygon)).into()
        }
        (Kind::MultiPolygon, Some(c), None) if empty(&c) => MultiPolygon(Vec::new()).into(),
        (Kind::GeometryCollection, _, Some(geometries)) => {
            Geometry::GeometryCollection(GeometryCollection(geometries))
        }
        (Kind::GeometryCollection, _, None) => return Err("a GeometryCollection without geometries".into()),
        (kind, Some(_), Some(_)) => return Err(format!("a {kind:?} with a geometries member")),
        (kind, Some(c), None) => {
            return Err(format!("a {kind:?} whose coordinates are nested {} deep", c.nesting()))
        }
        (kind, None, _) => return Err(format!("a {kind:?} without coordinates")),
    })
}

/// A polygon from its rings, the first the exterior (an empty exterior without any); rings are closed.
fn polygon(rings: Vec<Vec<Coord>>) -> Polygon<f64> {
    let mut rings = rings.into_iter();
    let exterior = LineString(rings.next().unwrap_or_default());
    let mut interiors = Vec::with_capacity(rings.len());
    interiors.extend(rings.map(LineString));
    Polygon::new(exterior, interiors)
}

/// `items` converted by `f`, in a vector of exactly their number. (`collect` would keep the allocation of
/// `items` where the types allow, with all its spare room: a polygon without holes would hold on to the
/// list its rings were read into.)
fn exact<T, U>(items: Vec<T>, f: impl FnMut(T) -> U) -> Vec<U> {
    let mut out = Vec::with_capacity(items.len());
    out.extend(items.into_iter().map(f));
    out
}

#[cfg(test)]
#[path = "geometry_tests.rs"]
mod tests;

//! The schedule as a table: one row per parcel with its tier, cycle, due dates, status, the facts behind
//! them, the citation and the reason. Column names are the schedule's public interface (README, golden tests).

use std::borrow::Cow;

use geo::MultiPolygon;

use crate::law::schedule::Row;
use crate::model::table::{text, Cell, Kind, Table};
use crate::pipeline::Run;
use crate::rules::Text;

/// Declares the schedule's columns once: the enum the cell lookup matches on, and the name/kind list.
macro_rules! columns {
    ($($variant:ident => $name:literal : $kind:ident,)*) => {
        #[derive(Clone, Copy)]
        enum Col { $($variant,)* }
        const ORDER: &[Col] = &[$(Col::$variant,)*];
        /// The schedule columns, in order (`mhw_source` and `floodplain_screening`, the last two, only in a run
        /// with a DEM).
        pub const COLUMNS: &[(&str, Kind)] = &[$(($name, Kind::$kind),)*];
    };
}

columns! {
    ParcelId => "parcel_id": Text,
    Record => "record": Int,
    Town => "town": Text,
    Owner => "owner": Text,
    Location => "location": Text,
    Tier => "tier": Text,
    Rule => "rule": Text,
    CycleYears => "cycle_years": Int,
    FirstDue => "first_due": Date,
    PreviousDue => "previous_due": Date,
    NextDue => "next_due": Date,
    Status => "status": Text,
    InspectionDue => "inspection_due": Date,
    Overdue => "overdue": Bool,
    LastInspection => "last_inspection": Date,
    LastResult => "last_result": Text,
    WaterBody => "water_body": Text,
    MhwDistanceFt => "mhw_distance_ft": Float,
    BordersMhw => "borders_mhw": Bool,
    SystemMhwDistanceFt => "system_mhw_distance_ft": Float,
    InWatershed => "in_watershed": Bool,
    Watershed => "watershed": Text,
    FloodZone => "flood_zone": Text,
    FloodElevationFt => "flood_elevation_ft": Float,
    RequiredBottomFt => "required_bottom_ft": Float,
    SystemBottomFt => "system_bottom_ft": Float,
    FloodplainVerdict => "floodplain_verdict": Text,
    WatercourseFt => "watercourse_ft": Float,
    Class => "class": Text,
    Permit => "permit": Text,
    PermitExpires => "permit_expires": Date,
    Grandfathered => "grandfathered": Bool,
    Sewered => "sewered": Bool,
    InCounty => "in_county": Bool,
    Basis => "basis": Text,
    SystemId => "system_id": Text,
    SystemLiesOn => "system_lies_on": Text,
    GeometryInvalid => "geometry_invalid": Text,
    Citation => "citation": Text,
    Reason => "reason": Text,
    MhwSource => "mhw_source": Text,
    FloodplainScreening => "floodplain_screening": Text,
}

/// The schedule's columns: with `mhw_source` and `floodplain_screening` (the last two) only in a run with a
/// DEM. Without one every line is
/// the shoreline layer's, and the schedule stays as it was.
pub fn columns(dem: bool) -> &'static [(&'static str, Kind)] {
    if dem {
        COLUMNS
    } else {
        &COLUMNS[..COLUMNS.len() - 2]
    }
}

/// A schedule run viewed as a [`Table`].
pub struct ScheduleTable<'a> {
    run: &'a Run,
    rows: &'a [Row],
}

impl<'a> ScheduleTable<'a> {
    /// The table of `run`.
    pub fn new(run: &'a Run) -> Self {
        ScheduleTable { run, rows: &run.rows }
    }

    /// The table of a block of `run`'s rows, as [`crate::pipeline::stream_schedule`] hands them out.
    pub fn of_rows(run: &'a Run, rows: &'a [Row]) -> Self {
        ScheduleTable { run, rows }
    }
}

fn float(v: Option<f64>, decimals: usize) -> Cell<'static> {
    v.map_or(Cell::Null, |v| Cell::Float(v, decimals))
}

impl Table for ScheduleTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        columns(self.run.reference.dem.is_some())
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        self.rows[row].parcel.shape.as_ref()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let r = &self.rows[row];
        let (p, e, f) = (&r.parcel, &r.entry, r.facts.as_ref());
        let flood = f.and_then(|f| f.flood.as_ref());
        let date = |d: Option<chrono::NaiveDate>| d.map_or(Cell::Null, Cell::Date);
        let bool_fact =
            |g: fn(&crate::model::facts::Facts) -> bool| f.map_or(Cell::Null, |f| Cell::Bool(g(f)));
        match ORDER[column] {
            Col::ParcelId => Cell::Text(Cow::Borrowed(&p.id)),
            Col::Record => Cell::Int(p.record as i64),
            Col::Town => {
                text(f.and_then(|f| f.town.as_deref().or(f.unknown_town.as_deref())).or(p.town.as_deref()))
            }
            Col::Owner => text(p.owner.as_deref()),
            Col::Location => text(p.location.as_deref()),
            Col::Tier => Cell::Text(Cow::Borrowed(e.tier.as_str())),
            Col::Rule => text(e.rule.map(Text::as_str)),
            Col::CycleYears => e.cycle_years.map_or(Cell::Null, |c| Cell::Int(c.into())),
            Col::FirstDue => date(e.first_due),
            Col::PreviousDue => date(e.previous_due),
            Col::NextDue => date(e.next_due),
            Col::Status => text(e.status.map(|s| s.as_str())),
            Col::InspectionDue => date(e.owed.map(|o| o.due)),
            Col::Overdue => e.owed.map_or(Cell::Null, |o| Cell::Bool(o.overdue)),
            Col::LastInspection => date(e.last_inspection.as_ref().map(|l| l.date)),
            Col::LastResult => text(e.last_inspection.as_ref().map(|l| &*l.result)),
            Col::WaterBody => text(f.and_then(|f| f.shore.as_ref()).map(|s| &*s.water_body)),
            Col::MhwDistanceFt => float(f.and_then(|f| f.shore.as_ref()).map(|s| s.parcel_distance_ft), 1),
            Col::BordersMhw => bool_fact(|f| f.borders_mhw),
            Col::SystemMhwDistanceFt => float(f.and_then(|f| f.system_mhw_ft.ft()), 1),
            Col::InWatershed => bool_fact(|f| f.watershed.is_some()),
            Col::Watershed => text(f.and_then(|f| f.watershed.as_deref())),
            Col::FloodZone => text(flood.map(|fl| fl.zone.as_str())),
            Col::FloodElevationFt => float(flood.and_then(|fl| fl.flood_elevation_ft), 2),
            Col::RequiredBottomFt => float(flood.and_then(|fl| fl.required_bottom_ft), 2),
            Col::SystemBottomFt => float(f.and_then(|f| f.system_bottom_ft), 2),
            Col::FloodplainVerdict => match (f, flood) {
                (None, _) => Cell::Null,
                (Some(_), None) => Cell::Text(Cow::Borrowed("n/a")),
                (Some(_), Some(fl)) => Cell::Text(Cow::Borrowed(fl.verdict.as_str())),
            },
            Col::WatercourseFt => float(f.and_then(|f| f.watercourse_ft.ft()), 1),
            Col::Class => text(e.permit.as_ref().map(|p| p.class.as_str())),
            Col::Permit => text(e.permit.as_ref().map(|p| p.kind.as_str())),
            Col::PermitExpires => date(e.permit.as_ref().and_then(|p| p.expires)),
            Col::Grandfathered => r.entry.grandfathered.map_or(Cell::Null, Cell::Bool),
            Col::Sewered => bool_fact(|f| f.sewered.is_some()),
            Col::InCounty => bool_fact(|f| f.in_county),
            Col::Basis => text(f.map(|f| f.basis.as_str())),
            Col::SystemId => r
                .systems
                .iter()
                .find(|l| l.binds)
                .map_or(Cell::Null, |l| Cell::Text(self.run.systems.id(l.index, l.served_first(&p.id)))),
            Col::SystemLiesOn => text(r.systems.iter().find(|l| l.binds).and_then(|l| l.lies_on.as_deref())),
            Col::GeometryInvalid => text(p.geometry_invalid.as_deref()),
            Col::Citation => Cell::Text(Cow::Borrowed(e.citation.as_str())),
            Col::Reason => Cell::Text(Cow::Owned(self.run.reason(r))),
            Col::FloodplainScreening => {
                flood.and_then(|fl| fl.screening).map_or(Cell::Null, |s| Cell::Text(Cow::Owned(s.describe())))
            }
            Col::MhwSource => {
                text(f.and_then(|f| f.shore.as_ref()).map(|s| self.run.reference.mhw_source(&s.water_body)))
            }
        }
    }

    fn push_text(&self, row: usize, column: usize, out: &mut String) -> bool {
        match ORDER[column] {
            Col::Reason => {
                self.run.push_reason(&self.rows[row], out);
                true
            }
            _ => false,
        }
    }
}

//! The sample county's parcels, one per case of the law, with the design behind each.
//!
//! Coordinates are EPSG:2261 feet. Shores: Owasco Lake x = 834,000 (west) and x = 840,000 (east);
//! Little Sodus Bay x = 800,000 (west) and x = 803,000 (east). `distance` is the designed shortest
//! distance from the parcel to the lake polygon's boundary (the MHW line).

use anyhow::Result;

use crate::feet::{rect, Pt, Ring};
use crate::sample::town_named;

/// One parcel of the sample and the case it stands for.
pub struct Parcel {
    /// Town name; gives `MUNI_NAME` and `SWIS`.
    pub town: &'static str,
    /// `PRINT_KEY`.
    pub key: &'static str,
    /// Rings in the order they are written to the shapefile record.
    pub rings: Vec<Ring>,
    /// RPS `SEWER_TYPE` code.
    pub sewer: &'static str,
    /// RPS `PROP_CLASS`.
    pub class: &'static str,
    pub owner: &'static str,
    /// `LOC_ST_NBR`, `LOC_STREET`.
    pub location: (&'static str, &'static str),
    /// Mailing city, state and ZIP when not the town's post office.
    pub mail: Option<(&'static str, &'static str, &'static str)>,
    /// Mailing street line when not the parcel's own post-office box; `Some("")` with `mail` empty
    /// leaves the mailing address out altogether.
    pub mail_street: Option<&'static str>,
    /// Absorption-field point and its bottom elevation (ft), if the county mapped it.
    pub system: Option<(Pt, Option<f64>)>,
    /// The `SYSTEM_ID` of `system`; `None`: numbered `S-0001`, `S-0002`, ... in the layer's order.
    pub system_id: Option<&'static str>,
    /// The print key of the owner's other lot the point of `system` lies on (a system across the road), when
    /// it does not lie on this one.
    pub system_on: Option<&'static str>,
    /// More systems of the lot, each written after `system`: (`SYSTEM_ID`, point, bottom elevation).
    pub more_systems: Vec<(&'static str, Pt, Option<f64>)>,
    /// The print key of a second lot `system` serves (`PARCEL_ID_2`), in the same town.
    pub shared_with: Option<&'static str>,
    /// Inspections: (date, result).
    pub history: &'static [(&'static str, &'static str)],
    /// The case this parcel stands for (README).
    pub case: &'static str,
    /// `MUNI_NAME` when not the town's name (a village, or blank).
    pub muni: Option<&'static str>,
    /// `SWIS` when not the town's code (a village's).
    pub swis: Option<&'static str>,
    /// Another town whose polygon part of the parcel lies in (a lot across a town line).
    pub also_in: Option<&'static str>,
    /// Designed distance to the MHW line (README).
    pub distance: &'static str,
}

impl Parcel {
    /// The joined parcel id, `SWIS-PRINT_KEY`.
    pub fn id(&self) -> Result<String> {
        Ok(format!("{}-{}", self.swis_code()?, self.key))
    }

    /// `SWIS`: the parcel's own, else its town's.
    pub fn swis_code(&self) -> Result<&'static str> {
        Ok(self.swis.unwrap_or(town_named(self.town)?.swis))
    }

    /// `MUNI_NAME`: the parcel's own, else its town's name.
    pub fn muni_name(&self) -> &'static str {
        self.muni.unwrap_or(self.town)
    }

    /// Written with this `MUNI_NAME` and `SWIS` instead of the town's.
    fn municipality(mut self, muni: &'static str, swis: &'static str) -> Self {
        (self.muni, self.swis) = (Some(muni), Some(swis));
        self
    }

    /// Part of the lot lies in `town` too.
    fn across(mut self, town: &'static str) -> Self {
        self.also_in = Some(town);
        self
    }

    fn sewer(mut self, code: &'static str) -> Self {
        self.sewer = code;
        self
    }

    fn class(mut self, code: &'static str) -> Self {
        self.class = code;
        self
    }

    fn at(mut self, number: &'static str, street: &'static str) -> Self {
        self.location = (number, street);
        self
    }

    fn mail(mut self, city: &'static str, state: &'static str, zip: &'static str) -> Self {
        self.mail = Some((city, state, zip));
        self
    }

    /// An owner of several parcels, who writes the same mailing address in different ways.
    fn owned_by(
        mut self,
        owner: &'static str,
        street: &'static str,
        city: &'static str,
        zip: &'static str,
    ) -> Self {
        self.owner = owner;
        self.mail_street = Some(street);
        self.mail = Some((city, "NY", zip));
        self
    }

    /// No mailing address on record (the owner cannot be mailed).
    fn no_mailing_address(mut self) -> Self {
        self.mail_street = Some("");
        self.mail = Some(("", "", ""));
        self
    }

    fn system(mut self, x: f64, y: f64, bottom_ft: Option<f64>) -> Self {
        self.system = Some(((x, y), bottom_ft));
        self
    }

    /// The id of the lot's system (`system`).
    fn system_id(mut self, id: &'static str) -> Self {
        self.system_id = Some(id);
        self
    }

    /// The lot's system lies on the owner's lot `key`, not on this one.
    fn system_on(mut self, key: &'static str) -> Self {
        self.system_on = Some(key);
        self
    }

    /// The lot's system serves the lot `key` too.
    fn shared_with(mut self, key: &'static str) -> Self {
        self.shared_with = Some(key);
        self
    }

    /// One more system on the lot.
    fn another_system(mut self, id: &'static str, x: f64, y: f64, bottom_ft: Option<f64>) -> Self {
        self.more_systems.push((id, (x, y), bottom_ft));
        self
    }

    fn history(mut self, rows: &'static [(&'static str, &'static str)]) -> Self {
        self.history = rows;
        self
    }
}

/// A parcel of one rectangular ring.
fn lot(
    town: &'static str,
    key: &'static str,
    b: [f64; 4],
    case: &'static str,
    distance: &'static str,
) -> Parcel {
    parcel(town, key, vec![Ring::Outer(rect(b[0], b[1], b[2], b[3]))], case, distance)
}

fn parcel(
    town: &'static str,
    key: &'static str,
    rings: Vec<Ring>,
    case: &'static str,
    distance: &'static str,
) -> Parcel {
    Parcel {
        town,
        key,
        rings,
        sewer: "2",
        class: "210",
        owner: "",
        location: ("", ""),
        mail: None,
        mail_street: None,
        system: None,
        system_id: None,
        system_on: None,
        more_systems: Vec::new(),
        shared_with: None,
        history: &[],
        case,
        distance,
        muni: None,
        swis: None,
        also_in: None,
    }
}

fn outer(x0: f64, y0: f64, x1: f64, y1: f64) -> Ring {
    Ring::Outer(rect(x0, y0, x1, y1))
}

fn hole(x0: f64, y0: f64, x1: f64, y1: f64) -> Ring {
    Ring::Inner(rect(x0, y0, x1, y1))
}

/// Made-up owners, handed out in turn (one non-ASCII name exercises the UTF-8 .cpg).
const OWNERS: &[&str] = &[
    "ALDERWICK JUNE",
    "BRACKENRIDGE TOMAS",
    "CORVALLE PRIYA",
    "DUNLOW MARTIN & ELSA",
    "EGREMONT SAMPLE TRUST",
    "FENWICKE OLIVE",
    "GANNETT-ROWE DARIUS",
    "PEÑA-GRÜNWALD ZOË",
    "HERONDALE LAKE LLC",
    "IBSWORTH CAROL",
    "JUNCOMBE RAY",
    "KESTRELL ANDREA",
];

/// Every parcel of the sample, in no particular order (the outputs are sorted by id).
// The table is split in two files to keep each a few hundred lines long.
#[path = "parcels_elsewhere.rs"]
mod elsewhere;
#[path = "parcels_owasco_shores.rs"]
mod owasco_shores;
#[path = "parcels_systems.rs"]
mod systems;

/// Every parcel of the sample, in no particular order (the outputs are sorted by id).
pub fn parcels() -> Vec<Parcel> {
    let mut all = owasco_shores::parcels();
    all.extend(elsewhere::parcels());
    // The register of systems' lots come last, so the lots before them keep their records, owners and boxes.
    all.extend(systems::parcels());
    for (i, p) in all.iter_mut().enumerate().filter(|(_, p)| p.owner.is_empty()) {
        p.owner = OWNERS[i % OWNERS.len()];
    }
    all
}

//! Sample parcels for the register of systems: a lot with two systems on different tiers, a system on the
//! owner's lot across the road, a failed system replaced with its plans accepted and its permit issued before
//! the work, a system serving two lots, and a vacant lot with no system on record. The inspections and events
//! naming their systems are in `records.rs`.

use super::{lot, Parcel};

/// The owner of the cottage lot and of the lot across the road that holds its system.
const ACROSS_THE_ROAD: &str = "QUILLFEATHER NORA & ABE";

/// The lots of the register of systems.
pub fn parcels() -> Vec<Parcel> {
    vec![
        // ---- Town of Niles, east shore (x = 840,000): two systems on one deep lot ----
        lot(
            "Niles",
            "150.09-1-3",
            [840_000.0, 1_033_000.0, 841_000.0, 1_033_200.0],
            "two systems on a deep lakefront lot: S-0101 150 ft from MHW (lakefront, §IV.A.1 ¶1; inspected \
         2026-06-10: current, next owed 2028-11-01) and S-0102 800 ft from it (§IV.A.1's exception: the \
         watershed tier, Niles; inspected 2020-05-01: overdue since 2026-11-01); the row takes the system due \
         first, S-0102",
            "0 ft (systems 150 ft and 800 ft)",
        )
        .at("3480", "E Lake Rd")
        .system_id("S-0101")
        .system(840_150.0, 1_033_100.0, Some(729.0))
        .another_system("S-0102", 840_800.0, 1_033_100.0, Some(745.0))
        .history(&[("2020-05-01", "pass"), ("2026-06-10", "pass")]),
        // ---- Town of Owasco, east shore: a cottage whose system lies on the owner's lot across the road ----
        lot(
            "Owasco",
            "128.05-1-8",
            [840_000.0, 1_038_000.0, 840_200.0, 1_038_150.0],
            "lakefront cottage lot whose system S-0103 lies on the owner's lot across the road (128.05-1-9, 250 \
         ft from MHW, not bordering): judged on that lot, near-shore (§IV.A.1 ¶2); inspected 2024-08-15, which \
         answers the near-shore 2025-11-01 (on the cottage's own lakefront grid 2026-11-01 would be missed)",
            "0 ft (its system on a lot 250 ft away)",
        )
        .class("260")
        .at("6040", "E Lake Rd")
        .owned_by(ACROSS_THE_ROAD, "14 Larch Ct", "Auburn", "13021")
        .system_id("S-0103")
        .system(840_400.0, 1_038_075.0, Some(733.0))
        .system_on("128.05-1-9")
        .history(&[("2024-08-15", "pass")]),
        lot(
            "Owasco",
            "128.05-1-9",
            [840_250.0, 1_038_000.0, 840_600.0, 1_038_150.0],
            "the owner's lot across the road (a 50-ft road between it and the cottage lot 128.05-1-8), holding \
         the cottage's system: an improved lot (210) with no system of its own on record keeps its own row, \
         near-shore at 250 ft; never inspected",
            "250 ft",
        )
        .at("6041", "E Lake Rd")
        .owned_by(ACROSS_THE_ROAD, "14 Larch Ct", "Auburn", "13021"),
        // ---- Town of Scipio, west shore (x = 834,000): a failed system replaced under permit ----
        lot(
            "Scipio",
            "160.12-1-3",
            [833_700.0, 1_033_000.0, 834_000.0, 1_033_150.0],
            "lakefront; the system S-0104 failed at the 2024-09-05 inspection and was ordered repaired; \
         replaced 2025-05-15 by S-0105 with its plans accepted (2025-01-20) and construction permit \
         (2025-02-10) before the work (§VII.A.1, §III.B): a new life, its construction an inspection, the old \
         findings and repair order left behind: current",
            "0 ft (systems 200 ft and 180 ft)",
        )
        .at("3460", "W Lake Rd")
        .system_id("S-0104")
        .system(833_800.0, 1_033_050.0, Some(731.5))
        .another_system("S-0105", 833_820.0, 1_033_100.0, Some(733.0))
        .history(&[("2024-09-05", "fail")]),
        // ---- Town of Cato: one system serving two lots ----
        lot(
            "Cato",
            "52.00-1-1",
            [805_000.0, 1_100_000.0, 805_300.0, 1_100_200.0],
            "one system, S-0106, serving this lot and its neighbour 52.00-1-2 (the systems layer's PARCEL_ID_2),          lying on this one: Cato's 7-year cohort 2007; its inspection of 2023-06-01, filed under this lot and          naming S-0106, answers 2028-11-01: current",
            "more than 30,000 ft",
        )
        .at("11210", "Rt 370")
        .system_id("S-0106")
        .system(805_250.0, 1_100_100.0, Some(402.0))
        .shared_with("52.00-1-2")
        .history(&[("2023-06-01", "pass")]),
        lot(
            "Cato",
            "52.00-1-2",
            [805_300.0, 1_100_000.0, 805_600.0, 1_100_200.0],
            "the neighbour served by S-0106, which lies on lot 52.00-1-1: Cato's 7-year cohort 2007, the system's          2023-06-01 inspection (filed under the other lot) answers 2028-11-01: current; listed once in the table          of systems",
            "more than 30,000 ft",
        )
        .at("11218", "Rt 370"),
        // ---- Town of Owasco, inland in the watershed: a vacant lot ----
        lot(
            "Owasco",
            "129.00-2-5",
            [846_000.0, 1_056_000.0, 846_400.0, 1_056_300.0],
            "vacant land (311) in the Owasco Lake watershed with no system on record and none within a mile: \
         owes no system duty (§IV.A: the duties are a system's), nor anything at its sale on 2026-10-20",
            "about 6,000 ft",
        )
        .class("311")
        .at("", "Rockefeller Rd"),
    ]
}

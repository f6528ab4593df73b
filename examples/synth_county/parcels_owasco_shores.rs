//! Sample parcels on the shores of Owasco Lake north of the inlet: Towns of Owasco and Niles
//! (east shore, x = 840,000) and Scipio and Fleming (west shore, x = 834,000).

use super::{hole, lot, outer, parcel, Parcel};

/// The parcels of the Towns of Owasco, Niles, Scipio and Fleming.
pub fn parcels() -> Vec<Parcel> {
    vec![
        // ---- Town of Owasco, east shore of Owasco Lake (x = 840,000) ----
        lot(
            "Owasco",
            "128.05-1-1",
            [840_000.0, 1_040_000.0, 840_300.0, 1_040_150.0],
            "lakefront on Owasco Lake; system 150 ft from MHW",
            "0 ft (touches the east shore)",
        )
        .class("260")
        .at("6101", "E Lake Rd")
        .mail("Scranton", "PA", "18503")
        .system(840_150.0, 1_040_075.0, Some(731.0))
        .history(&[("2025-06-12", "pass")]),
        lot(
            "Owasco",
            "128.05-1-2",
            [840_008.0, 1_041_000.0, 840_308.0, 1_041_150.0],
            "8 ft from the shore: borders the MHW line (within the 10 ft tolerance): lakefront",
            "8 ft",
        )
        .at("6115", "E Lake Rd")
        .history(&[("2026-08-20", "pass")]),
        lot(
            "Owasco",
            "128.05-1-3",
            [840_015.0, 1_041_400.0, 840_315.0, 1_041_550.0],
            "15 ft from the shore across the road: does not border; near-shore",
            "15 ft",
        )
        .at("6120", "E Lake Rd")
        .history(&[("2023-05-01", "pass")]),
        lot(
            "Owasco",
            "128.05-1-4",
            [839_900.0, 1_042_000.0, 840_250.0, 1_042_200.0],
            "lot runs 100 ft into the lake polygon (overlaps it): lakefront; never inspected",
            "0 ft (overlaps)",
        )
        .class("260")
        .at("6131", "E Lake Rd"),
        lot(
            "Owasco",
            "128.05-1-5",
            [840_000.0, 1_043_000.0, 841_200.0, 1_043_200.0],
            "lakefront lot whose system is 800 ft from MHW: §IV.A.1 exception; not near-shore \
         (it borders); watershed tier (Town of Owasco); last inspected 2019: overdue",
            "0 ft (system 800 ft)",
        )
        .at("6145", "E Lake Rd")
        .system(840_800.0, 1_043_100.0, Some(742.0))
        .history(&[("2019-07-01", "pass")]),
        lot(
            "Owasco",
            "128.05-1-6",
            [840_510.0, 1_045_000.0, 840_810.0, 1_045_200.0],
            "510 ft from the shore: not near-shore; watershed (Owasco)",
            "510 ft",
        )
        .at("6162", "E Lake Rd")
        .history(&[("2022-04-15", "pass")]),
        parcel(
            "Owasco",
            "128.05-1-7",
            vec![
                outer(840_000.0, 1_047_000.0, 840_200.0, 1_047_150.0),
                outer(840_250.0, 1_047_000.0, 840_600.0, 1_047_150.0),
            ],
            "multipolygon: shore lot plus a lot across the road holding the system (400 ft from \
         MHW): lakefront; latest inspection on 2024-11-01 itself, none since: overdue",
            "0 ft (system 400 ft)",
        )
        .at("6177", "E Lake Rd")
        .system(840_400.0, 1_047_075.0, Some(735.5))
        .history(&[("2022-10-01", "fail"), ("2024-11-01", "pass")]),
        lot(
            "Owasco",
            "129.00-2-1",
            [845_000.0, 1_050_000.0, 845_400.0, 1_050_300.0],
            "inland in the Owasco Lake watershed, Town of Owasco: watershed",
            "4,000 ft (east cove)",
        )
        .class("240")
        .at("312", "Rockefeller Rd")
        .history(&[("2026-03-10", "pass")]),
        lot(
            "Owasco",
            "130.00-1-1",
            [872_000.0, 1_050_000.0, 872_400.0, 1_050_300.0],
            "Town of Owasco outside the watershed: 7-year cohort 2009; last inspected 2015: overdue",
            "31,000 ft",
        )
        .class("240")
        .at("4410", "Twelve Corners Rd")
        .history(&[("2015-09-01", "pass")]),
        lot(
            "Owasco",
            "122.18-1-10",
            [840_000.0, 1_060_000.0, 840_300.0, 1_060_150.0],
            "lakefront inside the Owasco Lakeshore Sewer District polygon with SEWER_TYPE 2: the code \
         decides (§I.B \"using public sewer\"), so lakefront, and the disagreement is reported; never \
         inspected",
            "0 ft",
        )
        .at("5820", "E Lake Rd"),
        lot(
            "Owasco",
            "122.18-1-11",
            [840_000.0, 1_055_000.0, 840_300.0, 1_055_150.0],
            "lakefront with SEWER_TYPE 3 outside any sewer polygon: public sewer, excluded §I.B; \
         has history but no status",
            "0 ft",
        )
        .sewer("3")
        .at("5901", "E Lake Rd")
        .history(&[("2012-07-07", "pass")]),
        // ---- Town of Niles, east shore ----
        lot(
            "Niles",
            "150.09-1-1",
            [840_100.0, 1_030_000.0, 840_400.0, 1_030_200.0],
            "near-shore at 100 ft; last inspected 2021 (before the 2022 deadline): overdue",
            "100 ft",
        )
        .at("3350", "E Lake Rd")
        .history(&[("2021-09-09", "pass")]),
        lot(
            "Niles",
            "150.09-1-2",
            [840_000.0, 1_028_000.0, 840_250.0, 1_028_150.0],
            "lakefront; inspected on the 2026-11-01 deadline itself and again on 2027-01-05: current",
            "0 ft",
        )
        .class("260")
        .at("3310", "E Lake Rd")
        .history(&[("2026-11-01", "pass"), ("2027-01-05", "pass")]),
        parcel(
            "Niles",
            "155.00-1-1",
            vec![
                outer(845_000.0, 1_020_000.0, 845_600.0, 1_020_600.0),
                hole(845_200.0, 1_020_200.0, 845_400.0, 1_020_400.0),
            ],
            "donut (its hole is lot 155.00-1-2): watershed (Niles); inspected the day after the \
         2021 deadline: current",
            "5,000 ft",
        )
        .class("240")
        .at("2870", "Dutch Hill Rd")
        .history(&[("2021-11-02", "pass")]),
        lot(
            "Niles",
            "155.00-1-2",
            [845_200.0, 1_020_200.0, 845_400.0, 1_020_400.0],
            "the lot in the donut's hole: watershed (Niles); never inspected",
            "5,200 ft",
        )
        .at("2874", "Dutch Hill Rd"),
        lot(
            "Niles",
            "156.00-1-1",
            [850_000.0, 1_015_000.0, 850_300.0, 1_015_300.0],
            "SEWER_TYPE 4 (community private: not public sewer): watershed (Niles); history rows \
         out of date order, latest 2022-06-15",
            "10,000 ft",
        )
        .sewer("4")
        .class("240")
        .at("1995", "Twelve Corners Rd")
        .history(&[("2022-06-15", "pass"), ("2016-05-05", "pass"), ("2022-05-01", "fail")]),
        // ---- Town of Scipio, west shore (x = 834,000) ----
        lot(
            "Scipio",
            "160.12-1-1",
            [833_210.0, 1_030_000.0, 833_510.0, 1_030_200.0],
            "near-shore at 490 ft (west shore); never inspected",
            "490 ft",
        )
        .at("3420", "W Lake Rd"),
        lot(
            "Scipio",
            "160.12-1-2",
            [833_700.0, 1_025_000.0, 834_000.0, 1_025_150.0],
            "lakefront on the west shore (Scipio)",
            "0 ft",
        )
        .class("260")
        .at("3377", "W Lake Rd")
        .history(&[("2025-10-01", "pass")]),
        lot(
            "Scipio",
            "165.00-1-1",
            [829_000.0, 1_020_000.0, 829_400.0, 1_020_300.0],
            "inland in the Owasco watershed: watershed (Scipio)",
            "4,600 ft",
        )
        .class("240")
        .at("2605", "Center Rd")
        .history(&[("2024-07-07", "pass")]),
        lot(
            "Scipio",
            "166.00-1-1",
            [825_700.0, 1_025_000.0, 826_300.0, 1_025_200.0],
            "straddles the watershed's west edge (x 826,000) with its system 150 ft outside: not in \
         the watershed; 7-year cohort 2007; last inspected 2013: overdue",
            "7,700 ft",
        )
        .class("240")
        .at("2750", "Center Rd")
        .system(825_850.0, 1_025_100.0, Some(760.0))
        .history(&[("2013-06-01", "pass")]),
        lot(
            "Scipio",
            "166.00-1-2",
            [825_700.0, 1_027_000.0, 826_300.0, 1_027_200.0],
            "straddles the watershed's west edge, no system: part of it is in the watershed: \
         watershed (Scipio)",
            "7,700 ft",
        )
        .class("240")
        .at("2790", "Center Rd")
        .history(&[("2023-04-04", "pass")]),
        lot(
            "Scipio",
            "170.00-1-1",
            [818_000.0, 1_020_000.0, 818_400.0, 1_020_300.0],
            "Scipio outside the watershed: 7-year cohort 2007",
            "about 15,140 ft (west cove)",
        )
        .class("240")
        .at("1180", "Sherwood Rd")
        .history(&[("2022-02-02", "pass")]),
        // ---- Town of Fleming, west shore ----
        lot(
            "Fleming",
            "133.14-1-1",
            [833_700.0, 1_045_000.0, 834_000.0, 1_045_150.0],
            "lakefront (Fleming), system 120 ft from MHW; last inspected 2023: overdue",
            "0 ft (system 120 ft)",
        )
        .class("260")
        .at("5210", "W Lake Rd")
        .system(833_880.0, 1_045_075.0, Some(728.0))
        .history(&[("2023-03-03", "pass")]),
        parcel(
            "Fleming",
            "134.00-1-1",
            vec![
                outer(829_000.0, 1_052_000.0, 829_800.0, 1_052_800.0),
                outer(829_000.0, 1_053_000.0, 829_300.0, 1_053_200.0),
                hole(829_300.0, 1_052_300.0, 829_500.0, 1_052_500.0),
            ],
            "multipolygon whose shapefile rings are ordered [outer A, outer B, hole in A]: \
         watershed (Fleming)",
            "4,200 ft",
        )
        .class("240")
        .at("2233", "Fleming Rd")
        .history(&[("2026-09-09", "pass")]),
        lot(
            "Fleming",
            "138.00-1-1",
            [818_000.0, 1_050_000.0, 818_400.0, 1_050_300.0],
            "Fleming outside the watershed: 7-year cohort 2003",
            "15,600 ft",
        )
        .class("240")
        .at("1650", "Sennett Rd")
        .history(&[("2020-01-01", "pass")]),
    ]
}

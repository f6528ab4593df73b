//! Sample parcels away from the four shore towns: the inlet at Moravia, the watershed south of
//! the county line, Sempronius, the City of Auburn, the 7-year cohort towns, and Little Sodus Bay
//! in Sterling (shores x = 800,000 and x = 803,000).

use super::{lot, Parcel};

/// The parcels outside the Towns of Owasco, Niles, Scipio and Fleming.
pub fn parcels() -> Vec<Parcel> {
    vec![
        // ---- Town of Moravia, the inlet at the south end ----
        lot(
            "Moravia",
            "190.08-1-1",
            [836_900.0, 1_005_700.0, 837_100.0, 1_006_000.0],
            "lakefront: touches the lake's south-tip vertex; in the inlet AE zone with no system: \
         floodplain unknown",
            "0 ft (touches the vertex)",
        )
        .at("1020", "Inlet Rd")
        .history(&[("2025-05-05", "pass")]),
        lot(
            "Moravia",
            "191.00-1-1",
            [836_400.0, 1_002_000.0, 836_900.0, 1_002_300.0],
            "inlet AE zone, system bottom 720.0 ft >= 719.13 (717.13 + 2, §X): ok; watershed (Moravia)",
            "about 3,700 ft",
        )
        .at("21", "Main St")
        .system(836_650.0, 1_002_150.0, Some(720.0))
        .history(&[("2022-09-01", "pass")]),
        lot(
            "Moravia",
            "191.00-1-2",
            [837_100.0, 1_002_000.0, 837_600.0, 1_002_300.0],
            "inlet AE zone, system bottom 718.5 ft < 719.13: below; watershed (Moravia); never inspected",
            "about 3,700 ft",
        )
        .at("25", "Main St")
        .system(837_350.0, 1_002_150.0, Some(718.5)),
        lot(
            "Moravia",
            "191.00-1-3",
            [836_400.0, 1_001_000.0, 836_900.0, 1_001_300.0],
            "inlet AE zone, no system: floodplain unknown; watershed (Moravia); last inspected \
         2017: overdue",
            "about 4,700 ft",
        )
        .at("33", "Main St")
        .history(&[("2017-08-08", "pass")]),
        lot(
            "Moravia",
            "191.00-1-4",
            [837_500.0, 1_003_000.0, 838_200.0, 1_003_200.0],
            "parcel partly in the inlet AE zone but its system lies in shaded X (SFHA F): not in \
         the floodplain (n/a) despite a 715.0 ft bottom; watershed (Moravia)",
            "about 2,840 ft",
        )
        .at("40", "Main St")
        .system(838_050.0, 1_003_100.0, Some(715.0))
        .history(&[("2021-12-12", "pass")]),
        lot(
            "Moravia",
            "191.00-1-5",
            [839_000.0, 1_001_500.0, 839_400.0, 1_001_800.0],
            "system in shaded X only (SFHA F): n/a; watershed (Moravia)",
            "about 4,650 ft",
        )
        .at("58", "Main St")
        .system(839_200.0, 1_001_650.0, Some(716.0))
        .history(&[("2026-01-20", "pass")]),
        lot(
            "Moravia",
            "191.00-1-6",
            [836_400.0, 1_000_300.0, 836_900.0, 1_000_600.0],
            "inlet AE zone, system mapped without a bottom elevation: unknown; watershed (Moravia)",
            "about 5,400 ft",
        )
        .at("61", "Main St")
        .system(836_650.0, 1_000_450.0, None)
        .history(&[("2026-02-02", "pass")]),
        lot(
            "Moravia",
            "192.00-1-1",
            [842_100.0, 1_004_000.0, 842_500.0, 1_004_300.0],
            "zone A tributary (no BFE), about 2,900 ft from the lake: not the lake's own zone, so no \
         elevation applies and it must be determined: unknown despite a 722.3 ft bottom; watershed \
         (Moravia)",
            "4,500 ft",
        )
        .class("240")
        .at("1400", "Rt 38")
        .system(842_300.0, 1_004_150.0, Some(722.3))
        .history(&[("2026-10-31", "pass")]),
        lot(
            "Moravia",
            "195.00-1-1",
            [818_000.0, 1_003_000.0, 818_400.0, 1_003_300.0],
            "Moravia outside the watershed: no rule applies (unscheduled); history but no status",
            "about 17,000 ft",
        )
        .class("240")
        .at("900", "Oak Hill Rd")
        .history(&[("2019-05-05", "pass")]),
        lot(
            "Moravia",
            "199.00-1-1",
            [845_000.0, 999_700.0, 845_400.0, 1_000_700.0],
            "straddles the county line (y 1,000,000), 70% inside, but its system is 150 ft south \
         of the line: outside the county, excluded §I.C.2",
            "about 9,050 ft",
        )
        .class("240")
        .at("3100", "Rt 38")
        .system(845_200.0, 999_850.0, Some(741.0)),
        // ---- Town of Groton, Tompkins County: the watershed south of the county line ----
        lot(
            "Groton",
            "1.00-1-1",
            [836_900.0, 990_000.0, 837_300.0, 990_300.0],
            "Owasco watershed south of the county line, no system: outside the county, excluded \
         §I.C.2",
            "about 15,700 ft",
        )
        .class("240")
        .at("410", "Locke Rd"),
        // ---- Town of Sempronius ----
        lot(
            "Sempronius",
            "200.00-1-1",
            [862_000.0, 1_004_000.0, 862_400.0, 1_004_300.0],
            "in the Owasco watershed, but Sempronius is not one of the six towns: its 7-year cohort 2009",
            "about 22,700 ft",
        )
        .class("240")
        .at("7020", "Skinner Hill Rd")
        .history(&[("2024-05-05", "pass")]),
        // ---- City of Auburn ----
        lot(
            "Auburn",
            "115.34-1-1",
            [847_000.0, 1_080_000.0, 847_300.0, 1_080_200.0],
            "City of Auburn outside the sewer districts (SEWER_TYPE 2): no rule applies (unscheduled)",
            "about 15,500 ft",
        )
        .at("88", "Grant Ave"),
        lot(
            "Auburn",
            "110.22-2-5",
            [835_000.0, 1_080_000.0, 835_200.0, 1_080_150.0],
            "City of Auburn, SEWER_TYPE 3 inside the city sewer district: excluded §I.B",
            "about 12,100 ft",
        )
        .class("220")
        .sewer("3")
        .at("17", "Genesee St"),
        lot(
            "Auburn",
            "106.41-1-3",
            [830_000.0, 1_075_000.0, 830_200.0, 1_075_150.0],
            "City of Auburn, SEWER_TYPE 2 inside the city sewer district polygon: the code decides \
         (§I.B \"using public sewer\"), not sewered, and the disagreement is reported; no rule applies \
         to the City of Auburn (unscheduled)",
            "about 9,600 ft",
        )
        .at("140", "Swift St"),
        // ---- The seven 7-year cohorts elsewhere ----
        lot(
            "Aurelius",
            "123.45-1-2",
            [790_000.0, 1_060_000.0, 790_400.0, 1_060_300.0],
            "Aurelius: 7-year cohort 2003",
            "more than 40,000 ft",
        )
        .class("240")
        .at("1500", "Clark St Rd")
        .system(790_200.0, 1_060_150.0, Some(402.0))
        .history(&[("2018-04-04", "pass")]),
        lot(
            "Aurelius",
            "123.45-1-3",
            [790_000.0, 1_065_000.0, 790_400.0, 1_065_300.0],
            "Aurelius: cohort 2003; never inspected",
            "more than 40,000 ft",
        )
        .class("240")
        .at("1510", "Clark St Rd"),
        lot(
            "Brutus",
            "60.00-1-1",
            [850_000.0, 1_100_000.0, 850_400.0, 1_100_300.0],
            "Brutus: 7-year cohort 2004; last inspected 2017: overdue",
            "more than 30,000 ft",
        )
        .class("240")
        .at("8800", "Bonta Bridge Rd")
        .history(&[("2017-10-10", "pass")]),
        lot(
            "Genoa",
            "180.00-1-1",
            [795_000.0, 1_010_000.0, 795_400.0, 1_010_300.0],
            "Genoa: 7-year cohort 2005",
            "more than 35,000 ft",
        )
        .class("240")
        .at("450", "Ridge Rd")
        .history(&[("2020-02-20", "pass")]),
        lot(
            "Ira",
            "40.00-1-1",
            [800_000.0, 1_130_000.0, 800_400.0, 1_130_300.0],
            "Ira: cohort 2006, next due 2027-11-01; last inspected 2019 (within the 2020 deadline's \
         window): due this year; its owner also owns 40.00-1-3 and writes the same mailing address \
         another way (one letter for both)",
            "more than 25,000 ft (Little Sodus Bay)",
        )
        .class("240")
        .at("2101", "Rt 34")
        .owned_by("MARSH-TILLEY GRACE", "12 North Lake Street, Apt. 3", "Auburn", "13021")
        .history(&[("2019-06-10", "pass")]),
        lot(
            "Ira",
            "40.00-1-2",
            [801_000.0, 1_130_000.0, 801_400.0, 1_130_300.0],
            "Ira: cohort 2006, inspected after the 2020 deadline: current",
            "more than 25,000 ft (Little Sodus Bay)",
        )
        .class("240")
        .at("2115", "Rt 34")
        .history(&[("2021-03-01", "pass")]),
        lot(
            "Ira",
            "40.00-1-3",
            [802_000.0, 1_130_000.0, 802_400.0, 1_130_300.0],
            "Ira: cohort 2006, last inspected 2012 (before the 2013 deadline): overdue; same owner \
         and mailing address as 40.00-1-1",
            "more than 25,000 ft (Little Sodus Bay)",
        )
        .class("240")
        .at("2130", "Rt 34")
        .owned_by("Marsh-Tilley, Grace", "12 N. LAKE ST.  APARTMENT 3", "AUBURN", "13021-4410")
        .history(&[("2012-05-01", "pass")]),
        lot(
            "Ira",
            "40.00-1-4",
            [803_000.0, 1_130_000.0, 803_400.0, 1_130_300.0],
            "Ira: cohort 2006, never inspected; no mailing address on record (cannot be mailed)",
            "more than 25,000 ft (Little Sodus Bay)",
        )
        .class("240")
        .at("2144", "Rt 34")
        .no_mailing_address(),
        lot(
            "Cato",
            "50.00-1-1",
            [800_000.0, 1_100_000.0, 800_400.0, 1_100_300.0],
            "Cato: 7-year cohort 2007",
            "more than 30,000 ft",
        )
        .class("240")
        .at("11020", "Rt 370")
        .history(&[("2019-09-19", "pass")]),
        lot(
            "Ledyard",
            "175.00-1-1",
            [795_000.0, 1_030_000.0, 795_400.0, 1_030_300.0],
            "Ledyard: 7-year cohort 2008",
            "more than 35,000 ft",
        )
        .class("240")
        .at("1777", "Poplar Ridge Rd")
        .system(795_200.0, 1_030_150.0, Some(655.0))
        .history(&[("2023-01-10", "pass")]),
        lot(
            "Sennett",
            "90.00-1-1",
            [865_000.0, 1_080_000.0, 865_400.0, 1_080_300.0],
            "Sennett: 7-year cohort 2004; never inspected",
            "more than 20,000 ft",
        )
        .class("240")
        .at("3990", "Franklin Street Rd"),
        // ---- Town of Sterling, Little Sodus Bay (east shore x = 803,000) ----
        lot(
            "Sterling",
            "10.07-1-1",
            [803_000.0, 1_161_200.0, 803_300.0, 1_161_500.0],
            "lakefront on Little Sodus Bay in the AE zone with static BFE 250.5: bottom 253.4 ft >= \
         252.5: ok",
            "0 ft (system 150 ft)",
        )
        .class("260")
        .at("14550", "Bay Rd")
        .system(803_150.0, 1_161_350.0, Some(253.4))
        .history(&[("2025-09-09", "pass")]),
        lot(
            "Sterling",
            "10.07-1-2",
            [803_000.0, 1_162_000.0, 803_300.0, 1_162_300.0],
            "lakefront on Little Sodus Bay in the AE zone (static BFE 250.5): bottom 251.6 ft < \
         252.5: below; last inspected 2022: overdue",
            "0 ft (system 150 ft)",
        )
        .class("260")
        .at("14570", "Bay Rd")
        .system(803_150.0, 1_162_150.0, Some(251.6))
        .history(&[("2022-08-08", "pass")]),
        lot(
            "Sterling",
            "10.07-1-3",
            [803_000.0, 1_164_000.0, 803_250.0, 1_164_250.0],
            "lakefront on Little Sodus Bay outside the flood zone",
            "0 ft",
        )
        .class("260")
        .at("14610", "Bay Rd")
        .history(&[("2026-06-06", "pass")]),
        lot(
            "Sterling",
            "10.07-1-4",
            [803_250.0, 1_165_000.0, 803_500.0, 1_165_250.0],
            "near-shore on Little Sodus Bay at 250 ft",
            "250 ft",
        )
        .at("14640", "Bay Rd")
        .history(&[("2024-04-04", "pass")]),
        lot(
            "Sterling",
            "10.07-1-5",
            [803_000.0, 1_166_000.0, 803_900.0, 1_166_200.0],
            "lakefront lot on Little Sodus Bay whose system is 650 ft from MHW: falls to the \
         watershed tier (Sterling)",
            "0 ft (system 650 ft)",
        )
        .at("14660", "Bay Rd")
        .system(803_650.0, 1_166_100.0, Some(262.0))
        .history(&[("2026-07-07", "pass")]),
        lot(
            "Sterling",
            "10.06-1-1",
            [799_700.0, 1_163_000.0, 800_000.0, 1_163_200.0],
            "lakefront on the west shore of Little Sodus Bay; never inspected",
            "0 ft",
        )
        .class("260")
        .at("7120", "W Bay Rd"),
        lot(
            "Sterling",
            "12.00-1-1",
            [807_000.0, 1_155_000.0, 807_300.0, 1_155_200.0],
            "Little Sodus Bay watershed: watershed (Sterling); last inspected 2021-05-05: overdue",
            "about 6,200 ft",
        )
        .class("240")
        .at("13900", "Rt 104A")
        .history(&[("2021-05-05", "pass")]),
        lot(
            "Sterling",
            "20.00-1-1",
            [830_000.0, 1_155_000.0, 830_400.0, 1_155_300.0],
            "Sterling outside the Little Sodus watershed: 7-year cohort 2007",
            "more than 25,000 ft",
        )
        .class("240")
        .at("1350", "Sterling Station Rd")
        .history(&[("2020-10-10", "pass")]),
        // ---- Cases of the clause-by-clause reading (kept last, so earlier record numbers hold) ----
        lot(
            "Niles",
            "158.00-1-1",
            [858_000.0, 1_030_000.0, 858_400.0, 1_030_300.0],
            "Niles inside the Skaneateles Lake watershed polygon, outside Owasco's: §IV.A.1 ¶3 names only \
         the Owasco Lake and Little Sodus Bay watersheds, so Niles' 7-year cohort 2004; inspected \
         2019-05-05, within the 2025 deadline's window: current",
            "18,000 ft",
        )
        .class("240")
        .at("2750", "Sayles Corners Rd")
        .history(&[("2019-05-05", "pass")]),
        lot(
            "Niles",
            "157.00-1-1",
            [850_200.0, 1_022_000.0, 850_700.0, 1_022_300.0],
            "creek AE zone 10,000 ft from the lake, static BFE 745.0: not the lake's own zone, so FEMA's \
         BFE binds (747.0 required), bottom 740.0 ft: below; watershed (Niles)",
            "10,200 ft",
        )
        .at("3300", "Twelve Corners Rd")
        .system(850_450.0, 1_022_150.0, Some(740.0))
        .history(&[("2024-09-09", "pass")]),
        lot(
            "Owasco",
            "122.18-1-12",
            [840_000.0, 1_056_500.0, 840_250.0, 1_056_800.0],
            "lakefront in the lake's own AE zone with static BFE 718.4 above 717.13: the higher binds \
         (720.40 required), bottom 720.0 ft: below",
            "0 ft (system 150 ft)",
        )
        .at("5870", "E Lake Rd")
        .system(840_150.0, 1_056_650.0, Some(720.0))
        .history(&[("2025-05-05", "pass")]),
        lot(
            "Owasco",
            "122.18-1-13",
            [840_000.0, 1_061_000.0, 840_250.0, 1_061_300.0],
            "lakefront with no SEWER_TYPE inside the Owasco Lakeshore Sewer District polygon: without a \
         code the district decides, public sewer, excluded §I.B",
            "0 ft",
        )
        .sewer("")
        .at("5790", "E Lake Rd"),
        lot(
            "Moravia",
            "199.00-1-2",
            [846_000.0, 999_300.0, 846_400.0, 1_000_300.0],
            "straddles the county line, 30% inside, no system: its interior point is outside, but \
         §I.C.1 covers systems \"wholly or partially within\" the county: watershed (Moravia, from \
         MUNI_NAME: the towns layer stops at the county line); never inspected",
            "about 10,060 ft",
        )
        .class("240")
        .at("3150", "Rt 38"),
        lot(
            "Scipio",
            "171.00-1-1",
            [820_000.0, 1_007_000.0, 820_400.0, 1_008_600.0],
            "lot across the Moravia/Scipio town line (y 1,008,000), its interior point in Moravia, its \
         system in Scipio: the town comes from the system, so Scipio's 7-year cohort 2007 (Moravia, \
         outside the watershed, would have no rule)",
            "about 13,670 ft",
        )
        .across("Moravia")
        .class("240")
        .at("5005", "Long Hill Rd")
        .system(820_200.0, 1_008_400.0, Some(850.0))
        .history(&[("2023-03-03", "pass")]),
        lot(
            "Ira",
            "40.00-1-5",
            [804_000.0, 1_130_000.0, 804_400.0, 1_130_300.0],
            "Ira: cohort 2006; the 2020-11-01 deadline was a Sunday, so under GCL §25-a the inspection \
         on Monday 2020-11-02 met it; the 2027-11-01 one is open: due this year",
            "more than 25,000 ft (Little Sodus Bay)",
        )
        .class("240")
        .at("2160", "Rt 34")
        .history(&[("2020-11-02", "pass")]),
        lot(
            "Sterling",
            "10.15-1-1",
            [803_000.0, 1_167_500.0, 803_300.0, 1_167_800.0],
            "lakefront on Little Sodus Bay in the Village of Fair Haven (MUNI_NAME `Village of Fair \
         Haven`, SWIS 055601), outside the towns layer: the village gives the Town of Sterling",
            "0 ft",
        )
        .municipality("Village of Fair Haven", "055601")
        .class("260")
        .at("14800", "Bay Rd")
        .history(&[("2025-07-07", "pass")]),
        lot(
            "Sterling",
            "10.15-1-2",
            [804_600.0, 1_167_000.0, 805_000.0, 1_167_400.0],
            "Village of Fair Haven, blank MUNI_NAME, outside the towns layer: SWIS 055601 gives the \
         Town of Sterling; Little Sodus Bay watershed: watershed (Sterling)",
            "1,600 ft",
        )
        .municipality("", "055601")
        .at("14830", "Bay Rd")
        .history(&[("2022-03-03", "pass")]),
    ]
}

use std::path::PathBuf;

use chrono::NaiveDate;
use rusqlite::Connection;

use super::mail::Mail;
use super::*;
use crate::rules::notices::{Service, Stage};

fn d(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn fresh(name: &str) -> PathBuf {
    let dir = crate::scratch::root().join("program").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("program.sqlite")
}

fn letter(number: &str, parcel: &str, stage: Stage) -> Letter {
    Letter {
        number: number.into(),
        stage,
        served: Service::FirstClass,
        owner: Some("Smith, John".into()),
        owner_key: "JOHN SMITH".into(),
        street: "12 Lake Rd".into(),
        city: Some("Auburn".into()),
        state: Some("NY".into()),
        zip: Some("13021".into()),
        address_key: "12 LAKE RD|AUBURN|NY|13021".into(),
        items: vec![Item {
            parcel_id: parcel.into(),
            system_id: None,
            obligation: "periodic-inspection".into(),
            due: d("2027-11-01"),
            overdue: false,
            location: Some("12 Lake Rd".into()),
            town: Some("Owasco".into()),
            what: "inspection".into(),
            citation: "Art. V §IV.A.1".into(),
            why: "lakefront".into(),
            words: "{}".into(),
        }],
    }
}

fn batch(issued: &str, letters: Vec<Letter>) -> Batch {
    Batch { id: None, year: 2027, issued: d(issued), letters }
}

#[test]
fn a_batch_is_issued_only_once_published_and_reads_back_whole() {
    let path = fresh("round-trip");
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.next_serial(2027).unwrap(), 1);
    let b = batch(
        "2027-01-15",
        vec![letter("2027-000001", "A", Stage::First), letter("2027-000002", "B", Stage::First)],
    );
    let (id, token) = store.record_pending(&b, "out".as_ref(), "lakeshore notices --issue").unwrap();
    // Pending: numbers are taken, but nothing counts as noticed.
    assert_eq!(store.next_serial(2027).unwrap(), 3);
    assert!(store.noticed("A").unwrap().is_empty());
    assert!(store.batch(id).is_err());
    // Settled as published: issued, and the parcel's notice reads back.
    // The folder is kept whole, so that a run started elsewhere finds it.
    let out = std::path::absolute("out").unwrap();
    let told = store.settle(|dir, t| Ok(dir.is_absolute() && dir == out && t == token)).unwrap();
    assert_eq!(told.len(), 1);
    let noticed = store.noticed("A").unwrap();
    assert_eq!(noticed.len(), 1);
    assert_eq!((noticed[0].0.as_str(), noticed[0].1), ("periodic-inspection", d("2027-11-01")));
    assert_eq!((noticed[0].2.stage, noticed[0].2.letter.as_str()), (Stage::First, "2027-000001"));
    let back = store.batch(id).unwrap();
    assert_eq!(back.letters, b.letters);
    assert_eq!(store.last_issued().unwrap(), Some(d("2027-01-15")));
    // A batch dated before the last one issued is refused.
    let early = batch("2027-01-10", vec![letter("2027-000003", "C", Stage::First)]);
    let refused = store.record_pending(&early, "out".as_ref(), "x").unwrap_err().to_string();
    assert!(refused.contains("a batch was issued on 2027-01-15"), "{refused}");
}

#[test]
fn a_pending_batch_whose_files_were_not_published_is_forgotten() {
    let path = fresh("forgotten");
    let mut store = Store::open(&path).unwrap();
    let b = batch("2027-01-15", vec![letter("2027-000001", "A", Stage::First)]);
    store.record_pending(&b, "out".as_ref(), "x").unwrap();
    store.settle(|_, _| Ok(false)).unwrap();
    assert_eq!(store.next_serial(2027).unwrap(), 1);
    let count: i64 = store.conn.query_row("SELECT count(*) FROM item", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 0);
}

#[test]
fn mail_is_recorded_all_or_nothing() {
    let path = fresh("mail");
    let mut store = Store::open(&path).unwrap();
    let (id, _) = store
        .record_pending(
            &batch("2027-01-15", vec![letter("2027-000001", "A", Stage::First)]),
            "o".as_ref(),
            "x",
        )
        .unwrap();
    store.mark_issued(id).unwrap();
    let bad = store.mark(
        Mail::Returned,
        &[("2027-000001".into(), d("2027-02-01")), ("2027-000099".into(), d("2027-02-01"))],
        d("2027-02-03"),
    );
    assert!(bad.unwrap_err().to_string().contains("2027-000099: no issued letter has this number"));
    assert!(store.returned_addresses().unwrap().is_empty());
    assert_eq!(
        store.mark(Mail::Returned, &[("2027-000001".into(), d("2027-02-01"))], d("2027-02-03")).unwrap(),
        1
    );
    assert_eq!(
        store.mark(Mail::Returned, &[("2027-000001".into(), d("2027-02-01"))], d("2027-02-04")).unwrap(),
        0
    );
    let returned = store.returned_addresses().unwrap();
    assert_eq!((returned[0].letter.as_str(), returned[0].day), ("2027-000001", d("2027-02-01")));
    assert_eq!(store.noticed("A").unwrap()[0].2.returned, Some(d("2027-02-01")));
    let early = store.mark(Mail::Received, &[("2027-000001".into(), d("2027-01-01"))], d("2027-02-04"));
    assert!(early.unwrap_err().to_string().contains("before it was issued on 2027-01-15"));
}

#[test]
fn a_store_of_the_first_version_is_migrated_and_keeps_its_notices() {
    let path = fresh("migrate");
    {
        let mut conn = Connection::open(&path).unwrap();
        schema::make_at(&mut conn, 1, APPLICATION_ID).unwrap();
        conn.execute_batch(
            "INSERT INTO batch VALUES (1, 2026, '2026-01-15', 'issued', 'out', 't', 'x');
             INSERT INTO letter VALUES ('2026-000001', 1, 1, 'first', 'first-class', 'Doe', 'DOE', '1 Main St',
                                        'Auburn', 'NY', '13021', 'K');
             INSERT INTO item VALUES ('2026-000001', 1, 'P', NULL, 'periodic-inspection', '2026-11-01', 0, NULL,
                                      NULL, 'inspection', 'Art. V', 'why', '{}');",
        )
        .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let version: i64 = store.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, schema::VERSION);
    assert_eq!(store.noticed("P").unwrap()[0].2.letter, "2026-000001");
    assert_eq!(
        store.mark(Mail::Received, &[("2026-000001".into(), d("2026-01-20"))], d("2026-02-01")).unwrap(),
        1
    );
    assert_eq!(store.next_serial(2026).unwrap(), 2);
}

#[test]
fn a_damaged_or_foreign_file_is_refused_naming_it() {
    let path = fresh("damaged");
    std::fs::write(&path, b"SQLite format 3\0 this is not a database at all, only its first bytes").unwrap();
    let e = Store::open(&path).err().expect("refused").to_string();
    assert!(e.contains("program.sqlite") && e.contains("Nothing was issued"), "{e}");

    let other = fresh("foreign");
    Connection::open(&other).unwrap().execute_batch("CREATE TABLE parcels (id TEXT)").unwrap();
    let e = Store::open(&other).err().expect("refused").to_string();
    assert!(e.contains("is not a lakeshore program store"), "{e}");

    let newer = fresh("newer");
    Connection::open(&newer)
        .unwrap()
        .execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 99; CREATE TABLE t (x);"
        ))
        .unwrap();
    let e = Store::open(&newer).err().expect("refused").to_string();
    assert!(e.contains("version 99, made by a newer lakeshore"), "{e}");
}

#[test]
fn network_file_systems_are_told_by_their_type() {
    assert_eq!(network_kind(0x6969), Some("NFS"));
    assert_eq!(network_kind(0xFF53_4D42_u32 as i64), Some("CIFS"));
    // ext4 and tmpfs are local.
    assert_eq!(network_kind(0xEF53), None);
    assert_eq!(network_kind(0x0102_1994), None);
}

#[test]
fn a_second_run_cannot_take_the_store() {
    let path = fresh("lock");
    let _first = StoreLock::take(&path, &["lakeshore".into(), "notices".into()]).unwrap();
    let e = StoreLock::take(&path, &["lakeshore".into()]).err().expect("held").to_string();
    assert!(e.contains("another lakeshore run is recording in this program store (pid "), "{e}");
}

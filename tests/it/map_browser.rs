//! The interactive map of the SYNTHETIC sample county (as of 2027-01-15) in a real browser: headless Chromium
//! driven through chromedriver (WebDriver over plain HTTP on 127.0.0.1, no extra crates) loads `map.html`,
//! logs no console error, draws every parcel, shows a known parcel's due date and citation when it is
//! clicked, and its filters change the count.
//!
//! Expected values come from outside the program: the parcel count from `parcels.shp` read with the
//! `shapefile` crate, statuses and due dates from the hand-worked `tests/golden/sample/expected.csv`, the
//! citation from the rule set's TOML (`data/rules/cayuga-county-art-v.toml`: the rest of the county is
//! inspected under §IV.A.2), and the shared owner from `data/sample/README.md`.
//!
//! Needs Chromium and chromedriver (Debian packages chromium and chromium-driver); without them the tests
//! say they are skipped and pass, unless `CI` is set: then they fail. Nothing sleeps: every wait is on the
//! browser's own signal (the page's `data-ready` attribute, a popup element appearing, chromedriver's
//! start-up line).

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

/// The WebDriver key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A chromedriver process and one browser session in it; both end when dropped.
pub(crate) struct Browser {
    driver: Child,
    port: u16,
    session: String,
    profile: PathBuf,
}

/// One HTTP/1.1 request to chromedriver; the response's `value`. A WebDriver error panics with its message.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Value {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("chromedriver: {e}"));
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // Read the head, then exactly Content-Length bytes (chromedriver may keep the connection open).
    let mut reader = BufReader::new(stream);
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end().to_ascii_lowercase();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("content-length:") {
            length = n.trim().parse::<usize>().ok();
        }
        chunked |= line.starts_with("transfer-encoding:") && line.contains("chunked");
    }
    let content = match (length, chunked) {
        (Some(n), false) => {
            let mut body = vec![0; n];
            reader.read_exact(&mut body).unwrap();
            String::from_utf8_lossy(&body).into_owned()
        }
        _ => {
            let mut body = String::new();
            reader.read_to_string(&mut body).unwrap();
            if chunked {
                dechunk(&body)
            } else {
                body
            }
        }
    };
    let content = content.as_str();
    let reply: Value =
        serde_json::from_str(content).unwrap_or_else(|e| panic!("{method} {path}: {e}: {content}"));
    let value = reply["value"].clone();
    if let Some(error) = value.get("error") {
        panic!("{method} {path}: {error}: {}", value["message"]);
    }
    value
}

/// The body of a chunked HTTP response.
fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        text = rest[n..].trim_start_matches("\r\n");
    }
    out
}

impl Browser {
    /// Starts chromedriver on a free port (waiting for its start-up line) and a headless Chromium session.
    pub(crate) fn start(chromium: &Path, chromedriver: &Path, label: &str) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
        let mut lines = BufReader::new(driver.stdout.take().unwrap()).lines();
        let started = lines.by_ref().map_while(Result::ok).any(|l| l.contains("started successfully"));
        assert!(started, "chromedriver did not start");
        // Keep draining its output so it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let profile = common::fresh_dir(&format!("{label}-profile"));
        let mut args: Vec<String> =
            lakeshore::report::print::HEADLESS_FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push("--window-size=1280,900".into());
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session = http(port, "POST", "/session", Some(&capabilities));
        let session = session["sessionId"].as_str().expect("a session id").to_string();
        let browser = Browser { driver, port, session, profile };
        browser.post("/timeouts", json!({"script": 60_000, "pageLoad": 60_000}));
        browser
    }

    fn post(&self, path: &str, body: Value) -> Value {
        http(self.port, "POST", &format!("/session/{}{path}", self.session), Some(&body))
    }

    /// Runs `script` in the page; its return value.
    pub(crate) fn run(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({"script": script, "args": []}))
    }

    /// Runs `script`, which calls `done(value)` (its last argument) when it is finished.
    pub(crate) fn wait_for(&self, script: &str) -> Value {
        let body = format!("const done = arguments[arguments.length - 1];\n{script}");
        self.post("/execute/async", json!({"script": body, "args": []}))
    }

    /// Opens `page` and waits for it to say it is drawn (`data-ready`); the load time it reports, ms.
    pub(crate) fn open_map(&self, page: &Path) -> f64 {
        // The path as a URL's: the characters that mean something in one written as escapes.
        let path = page.display().to_string().replace('%', "%25").replace('#', "%23").replace('?', "%3F");
        self.post("/url", json!({"url": format!("file://{path}")}));
        let ms = self.wait_for(
            "const ready = () => document.body.getAttribute('data-ready') === 'true';
             if (ready()) { done(document.body.getAttribute('data-load-ms')); } else {
               new MutationObserver((_, o) => { if (ready()) { o.disconnect(); done(document.body.getAttribute('data-load-ms')); } })
                 .observe(document.body, {attributes: true});
             }",
        );
        ms.as_str().and_then(|m| m.parse().ok()).expect("the page reports its load time")
    }

    /// Waits until a tiled page has drawn the tiles it asked for (`data-tiles="drawn"`).
    pub(crate) fn tiles_drawn(&self) {
        self.wait_for(
            "const drawn = () => document.body.getAttribute('data-tiles') === 'drawn';
             if (drawn()) { done(null); } else {
               new MutationObserver((_, o) => { if (drawn()) { o.disconnect(); done(null); } })
                 .observe(document.body, {attributes: true});
             }",
        );
    }

    /// The browser's console messages of level SEVERE (errors), since the last call.
    pub(crate) fn console_errors(&self) -> Vec<String> {
        let log = self.post("/se/log", json!({"type": "browser"}));
        log.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].to_string())
            .collect()
    }

    fn element(&self, css: &str) -> String {
        let found = self.post("/element", json!({"using": "css selector", "value": css}));
        found[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}")).to_string()
    }

    pub(crate) fn click(&self, css: &str) {
        let id = self.element(css);
        self.post(&format!("/element/{id}/click"), json!({}));
    }

    pub(crate) fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.post(&format!("/element/{id}/clear"), json!({}));
        self.post(&format!("/element/{id}/value"), json!({"text": text}));
    }

    /// A mouse click at viewport point (`x`, `y`).
    pub(crate) fn click_at(&self, x: i64, y: i64) {
        self.post(
            "/actions",
            json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0}
            ]}]}),
        );
    }

    /// The parcels the side panel counts.
    /// The page point `expression` gives (`{x, y}`).
    pub(crate) fn point(&self, expression: &str) -> (i64, i64) {
        let at = self.run(&format!("return {expression};"));
        (at["x"].as_i64().unwrap(), at["y"].as_i64().unwrap())
    }

    /// The opacity (0 to 255) of the parcels' canvas at page point (`x`, `y`).
    fn painted(&self, x: i64, y: i64) -> u64 {
        let script = format!(
            "const c = window.lakeshoreMap.map.getPane('parcels').querySelector('canvas');
             const r = c.getBoundingClientRect();
             const px = Math.floor(({x} - r.left) * c.width / r.width), py = Math.floor(({y} - r.top) * c.height / r.height);
             return c.getContext('2d').getImageData(px, py, 1, 1).data[3];"
        );
        self.run(&script).as_u64().unwrap()
    }

    /// The text of the popup of parcel `id`, once it is open (a popup just closed may still fade out).
    pub(crate) fn popup(&self, id: &str) -> String {
        let text = self.wait_for(&format!(
            "const find = () => document.getElementById('popup-{id}');
             if (find()) {{ done(find().textContent); }} else {{
               new MutationObserver((_, o) => {{ if (find()) {{ o.disconnect(); done(find().textContent); }} }})
                 .observe(document.body, {{childList: true, subtree: true}});
             }}"
        ));
        text.as_str().unwrap().to_string()
    }

    pub(crate) fn count(&self) -> usize {
        let text = self.run("return document.getElementById('count').textContent;");
        text.as_str().and_then(|t| t.parse().ok()).expect("a count")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| {
            http(self.port, "DELETE", &format!("/session/{}", self.session), None);
        });
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Chromium and chromedriver, or `None` after saying the test is skipped (a failure when `CI` is set).
pub(crate) fn browser_or_skip(test: &str) -> Option<(PathBuf, PathBuf)> {
    let chromium = common::chromium_or_skip(test)?;
    let driver = common::tool_or_skip(test, "chromedriver", "chromium-driver")?;
    Some((chromium, driver))
}

/// Writes the sample's HTML map with the binary, as a user runs it; returns the file.
fn sample_map(label: &str) -> PathBuf {
    let dir = common::fresh_dir(label);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    write_map(&config, &[], &dir)
}

/// Writes the HTML map (as of 2027-01-15) of the county of `config` into the folder `out` with the binary, as
/// a user runs it, with the flags `more`; returns the page.
pub(crate) fn write_map(config: &Path, more: &[&str], out: &Path) -> PathBuf {
    let status = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["map", "--as-of", "2027-01-15", "--format", "html", "-q"])
        .args(more)
        .arg("--config")
        .arg(config)
        .arg("--out")
        .arg(out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // The sample has bad records on purpose (exit 2); a file that stopped the run would be 1.
    assert!(matches!(status.code(), Some(0 | 2)), "lakeshore map failed: {status}");
    // `--out` names the page, or the folder `map.html` goes in.
    if out.extension().is_some_and(|e| e == "html" || e == "htm") {
        out.to_path_buf()
    } else {
        out.join("map.html")
    }
}

/// Parcel records of `data/sample/parcels.shp` that have a polygon, read with the `shapefile` crate.
fn parcels_with_shapes() -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.shp");
    let mut reader = shapefile::ShapeReader::from_path(&path).unwrap();
    reader
        .iter_shapes()
        .filter(|s| matches!(s, Ok(shapefile::Shape::Polygon(p)) if !p.rings().is_empty()))
        .count()
}

/// The golden schedule's rows as (parcel id, next due, status).
fn golden() -> Vec<(String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/sample/expected.csv");
    let (_, rows) = common::read_rows(&path).unwrap();
    rows.into_iter().map(|r| (r["parcel_id"].clone(), r["next_due"].clone(), r["status"].clone())).collect()
}

#[test]
fn the_html_map_loads_clean_and_answers_clicks_and_filters() {
    let Some((chromium, driver)) = browser_or_skip("the_html_map_loads_clean_and_answers_clicks_and_filters")
    else {
        return;
    };
    let page = sample_map("map-browser");
    let browser = Browser::start(&chromium, &driver, "map-browser");
    browser.open_map(&page);
    assert_eq!(browser.console_errors(), Vec::<String>::new(), "console errors");

    // Every parcel with a shape is drawn and counted.
    let expected = parcels_with_shapes();
    assert_eq!(browser.count(), expected);
    assert_eq!(browser.run("return window.lakeshoreMap.drawn();"), json!(expected));

    // The legend's numbers add up to the schedule's: each tier entry (drawn + overdue + failed, drawn apart)
    // to the golden schedule's count of that tier.
    let legend =
        browser.run("return Array.from(document.querySelectorAll('#legend div')).map(d => d.textContent);");
    let (_, rows) =
        common::read_rows(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/sample/expected.csv"))
            .unwrap();
    for (label, tier) in [
        ("Lakefront", "lakefront"),
        ("Within 500 ft of shore", "near-shore"),
        ("Watershed", "watershed"),
        ("Rest of county", "county"),
    ] {
        let entry = legend
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .find(|t| t.starts_with(&format!("{label} (")));
        let numbers = entry.unwrap_or_else(|| panic!("no {label} entry in {legend}"));
        let sum: usize = numbers[label.len() + 2..numbers.len() - 1]
            .split(" + ")
            .map(|n| n.split(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(sum, rows.iter().filter(|r| r["tier"] == tier).count(), "{numbers}");
    }

    // A click far from every parcel (the map's bottom right corner, beyond the county) opens nothing.
    let (x, y) = browser.point(
        "(() => { const r = window.lakeshoreMap.map.getContainer().getBoundingClientRect();
                  return {x: Math.round(r.right - 5), y: Math.round(r.bottom - 5)}; })()",
    );
    browser.click_at(x, y);
    assert_eq!(browser.run("return document.querySelectorAll('.leaflet-popup').length;"), json!(0));

    // At the county's extent a parcel is a few pixels across: it is painted, a click on it opens its popup,
    // and hidden by a filter (Cato's parcel is current, not overdue) it is painted no more.
    let small = "052489-50.00-1-1";
    let (x, y) = browser.point(&format!("window.lakeshoreMap.locate('{small}')"));
    assert!(browser.painted(x, y) > 0, "parcel {small} is painted at ({x}, {y})");
    browser.click_at(x, y);
    assert!(browser.popup(small).contains("Cato"));
    browser.run("window.lakeshoreMap.map.closePopup(); return null;");
    let (x, y) = browser.point(&format!("window.lakeshoreMap.locate('{small}')"));
    browser.click("#filter-overdue");
    assert_eq!(browser.painted(x, y), 0, "parcel {small} is hidden by the overdue filter");
    browser.click("#filter-overdue");
    assert!(browser.painted(x, y) > 0, "parcel {small} is painted again");

    // Clicking parcel 053289-40.00-1-1 shows its next due date and citation.
    let id = "053289-40.00-1-1";
    let golden = golden();
    let (_, next_due, _) = golden.iter().find(|(p, _, _)| p == id).unwrap();
    let (x, y) = browser.point(&format!("window.lakeshoreMap.focus('{id}')"));
    browser.click_at(x, y);
    let popup = browser.popup(id);
    assert!(popup.contains(id), "{popup}");
    assert!(popup.contains(&format!("Next due{next_due}")), "{popup}");
    assert!(popup.contains("Art. V §IV.A.2"), "{popup}");

    // Overdue only: the golden schedule's parcels whose owed inspection is late: overdue, or never inspected
    // with a due date already passed (a previous due date).
    let expected_csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/sample/expected.csv");
    let overdue = common::read_rows(&expected_csv)
        .unwrap()
        .1
        .iter()
        .filter(|r| {
            r["status"] == "overdue" || (r["status"] == "never-inspected" && !r["previous_due"].is_empty())
        })
        .count();
    browser.click("#filter-overdue");
    assert_eq!(browser.count(), overdue);
    browser.click("#filter-overdue");
    assert_eq!(browser.count(), expected);
    // Search by owner: the README's owner of two Ira parcels, written in lower case.
    browser.type_into("#search", "marsh-tilley");
    assert_eq!(browser.count(), 2);
    // And by parcel id prefix: the Ira parcels (SWIS 053289) of the golden schedule.
    browser.type_into("#search", "053289-");
    assert_eq!(browser.count(), golden.iter().filter(|(p, _, _)| p.starts_with("053289-")).count());
    browser.click("#colour-status");
    assert_eq!(browser.console_errors(), Vec::<String>::new(), "console errors after using the map");
}

/// Loads the HTML map named by `LAKESHORE_MAP_HTML` and prints its size and the load time the page reports:
/// `LAKESHORE_MAP_HTML=/path/map.html cargo test --test it map_browser::measure -- --ignored --nocapture`.
#[test]
#[ignore = "measures a map file given in LAKESHORE_MAP_HTML"]
fn measure_map_load_time() {
    let Some(page) = std::env::var_os("LAKESHORE_MAP_HTML").map(PathBuf::from) else {
        eprintln!("set LAKESHORE_MAP_HTML to the map to measure");
        return;
    };
    let Some((chromium, driver)) = browser_or_skip("measure_map_load_time") else { return };
    let page = std::path::absolute(page).unwrap();
    let bytes = std::fs::metadata(&page).unwrap().len();
    let browser = Browser::start(&chromium, &driver, "map-measure");
    let ms = browser.open_map(&page);
    let drawn = browser.run("return window.lakeshoreMap.drawn();");
    println!("{}: {bytes} bytes, {drawn} parcels drawn, data-ready after {ms} ms", page.display());
    // A tiled page: the tiles of a view at the zoom its parcels are drawn from, centred on the tile with the
    // most parcels; the filter below then works on that view's parcels.
    if browser.run("return !!window.lakeshoreMap.parcelZoom;") == json!(true) {
        browser.run(
            "const m = window.lakeshoreMap, t = m.tiles(), n = 2 ** t.zoom;
             const [x, y] = t.list.reduce((a, b) => (b[2] > a[2] ? b : a));
             const lon = (x + 0.5) / n * 360 - 180;
             const lat = Math.atan(Math.sinh(Math.PI * (1 - 2 * (y + 0.5) / n))) * 180 / Math.PI;
             window.measureStart = performance.now();
             m.map.setView([lat, lon], m.parcelZoom, {animate: false}); return null;",
        );
        browser.tiles_drawn();
        let view = browser.run(
            "const m = window.lakeshoreMap;
             return [performance.now() - window.measureStart, m.tilesLoaded(), m.drawn()];",
        );
        println!(
            "a view at zoom {}: {} tiles, {} parcels drawn after {:.0} ms",
            browser.run("return window.lakeshoreMap.parcelZoom;"),
            view[1],
            view[2],
            view[0].as_f64().unwrap_or(0.0)
        );
    }
    // A filter applied and removed, timed by the page's own clock.
    let filter = browser.run(
        "const box = document.getElementById('filter-overdue'); const t = performance.now();
         box.click(); const on = performance.now() - t; box.click();
         return [on, performance.now() - t - on];",
    );
    println!(
        "overdue filter on {:.0} ms, off {:.0} ms",
        filter[0].as_f64().unwrap_or(0.0),
        filter[1].as_f64().unwrap_or(0.0)
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}

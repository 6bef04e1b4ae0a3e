//! A real headless Chromium for the browser tests: Debian's `/usr/bin/chromium` driven over
//! the DevTools protocol. One browser per test binary, started on first use and killed when
//! the binary exits; one tab ([`Page`]) per page a test opens. A page records what a person
//! would see go wrong: console errors, uncaught exceptions, browser log errors (a failed load,
//! a blocked resource) and every request it makes; it waits for the charts-drawn marker of the
//! page contract (`data-charts-drawn == data-charts-expected` on `<html>`), counts the pixels
//! each chart drew, and takes screenshots (for docs/images when `DISKMETER_SCREENSHOTS=DIR` is
//! set).
//!
//! The protocol runs over the pipe Chromium opens with `--remote-debugging-pipe` (commands to
//! its fd 3, replies and events from its fd 4, each JSON message ended by a NUL byte), with
//! the handful of methods below written as JSON. A client crate (headless_chrome, used here
//! until 2026-11-28) compiles the whole generated protocol and a TLS stack for its own
//! downloads: 54 s of one core, a sixth of the 2-core CI machine's test build, for the eight
//! methods these tests call. Methods and events: the DevTools protocol's reference
//! (chromedevtools.github.io/devtools-protocol: Target, Page, Runtime, Log, Network).

mod devtools;
mod layout;

#[allow(unused_imports)]
pub use layout::{ChartBoxes, PRINT_HEIGHT_PX, PRINT_WIDTH_PX};

use base64::Engine as _;
use devtools::Connection;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where Debian's chromium package installs the browser (scripts/test installs it as root).
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The environment variable naming the folder the tests save their documentation
/// screenshots into (docs/images), see [`Page::screenshot_for_docs`].
pub const SCREENSHOTS_ENV: &str = "DISKMETER_SCREENSHOTS";

/// How long a page may take to load and draw its charts: generous for a busy 2-core machine;
/// the wait ends as soon as the page is ready. Also the longest a protocol call may take.
pub const PAGE_TIMEOUT: Duration = Duration::from_secs(30);

/// The browser's window: wide enough for the report's layout, the size of the screenshots.
const WINDOW: (u32, u32) = (1280, 900);

/// Flags beside `--headless`, `--no-sandbox`, `--disable-gpu`, the window's size, the pipe
/// and the fresh `--user-data-dir`: no traffic of the browser's own (so a request seen is the
/// page's), no QUIC, and stable screenshots.
const FLAGS: [&str; 9] = [
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
];

/// The test binary's Chromium, started by the first [`Chromium::start`].
pub struct Chromium {
    connection: Arc<Connection>,
}

/// The browser of this test binary, or why it could not start.
static CHROMIUM_OF_BINARY: OnceLock<Result<Chromium, String>> = OnceLock::new();

/// What each open tab has seen, by its protocol session id (the connection's events go here).
static SESSIONS: LazyLock<Mutex<HashMap<String, Arc<Mutex<Seen>>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The profile folder and process of the browser, for the clean-up at exit.
static PROFILE: OnceLock<(PathBuf, u32)> = OnceLock::new();

impl Chromium {
    /// The test binary's headless Chromium (started on the first call, shared by the tests of
    /// the binary, each with tabs of its own); `None` when chromium is not installed: the test
    /// is skipped with the reason (and fails under CI, see [`super::skip`]). A chromium that is
    /// installed but does not start fails the test.
    pub fn start(test: &str) -> Option<&'static Chromium> {
        if !Path::new(CHROMIUM).exists() {
            super::skip(
                test,
                &format!(
                    "{CHROMIUM} is not installed (Debian's chromium; scripts/test installs \
                     it as root)"
                ),
            );
            return None;
        }
        match CHROMIUM_OF_BINARY.get_or_init(launch) {
            Ok(chromium) => Some(chromium),
            Err(why) => panic!("{test}: {CHROMIUM} does not start: {why}"),
        }
    }

    /// Opens `url` in a new tab and waits until it has loaded (its load event fired);
    /// everything the page logs and requests from its first byte on is recorded.
    pub fn open(&self, url: &str) -> Page {
        let connection = &self.connection;
        let target = connection
            .call(None, "Target.createTarget", json!({ "url": "about:blank" }))
            .unwrap_or_else(|e| panic!("open a tab for {url}: {e}"));
        let target = target["targetId"].as_str().unwrap_or_default().to_string();
        let session = connection
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target, "flatten": true }),
            )
            .unwrap_or_else(|e| panic!("attach to the tab of {url}: {e}"));
        let session = session["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let seen = Arc::new(Mutex::new(Seen::default()));
        SESSIONS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(session.clone(), Arc::clone(&seen));
        let page = Page {
            connection: Arc::clone(connection),
            target,
            session,
            seen,
            url: url.to_string(),
        };
        // The domains are enabled before the navigation so its first request is seen too.
        for domain in ["Page", "Runtime", "Log", "Network"] {
            page.call(&format!("{domain}.enable"), json!({}))
                .unwrap_or_else(|e| panic!("enable the DevTools domain {domain} for {url}: {e}"));
        }
        let navigated = page
            .call("Page.navigate", json!({ "url": url }))
            .unwrap_or_else(|e| panic!("load {url}: {e}"));
        if let Some(error) = navigated["errorText"].as_str() {
            panic!("load {url}: {error}");
        }
        let deadline = Instant::now() + PAGE_TIMEOUT;
        while page.seen().loads == 0 {
            assert!(
                Instant::now() < deadline,
                "load {url}: no load event in {PAGE_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        page
    }
}

/// Starts the browser with a fresh profile and the protocol's pipe; registers its removal
/// (and the browser's end) at exit, as the browser outlives every test of the binary.
fn launch() -> Result<Chromium, String> {
    let profile = std::env::temp_dir().join(format!("diskmeter-chromium-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).map_err(|e| format!("create {}: {e}", profile.display()))?;
    let mut command = Command::new(CHROMIUM);
    command
        .args([
            "--headless",
            // Tests run as root, where Chromium's sandbox cannot start.
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
            &format!("--window-size={},{}", WINDOW.0, WINDOW.1),
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(FLAGS)
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let (connection, pid) = Connection::start(command, PAGE_TIMEOUT, |method, session, params| {
        let seen = SESSIONS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(session)
            .cloned();
        if let Some(seen) = seen {
            seen.lock()
                .unwrap_or_else(|e| e.into_inner())
                .record(method, params);
        }
    })
    .map_err(|e| format!("start {CHROMIUM}: {e}"))?;
    let _ = PROFILE.set((profile, pid));
    extern "C" fn end_chromium() {
        if let Some((profile, pid)) = PROFILE.get() {
            // SAFETY: signals and reaps the browser process this test binary started.
            unsafe {
                libc::kill(*pid as libc::pid_t, libc::SIGKILL);
                libc::waitpid(*pid as libc::pid_t, std::ptr::null_mut(), 0);
            }
            let _ = std::fs::remove_dir_all(profile);
        }
    }
    // SAFETY: registers a plain function with no captured state to run at exit.
    unsafe {
        libc::atexit(end_chromium);
    }
    // The first reply says the browser listens.
    connection
        .call(None, "Browser.getVersion", json!({}))
        .map_err(|e| format!("the DevTools pipe: {e}"))?;
    Ok(Chromium { connection })
}

/// What a tab has reported so far.
#[derive(Default)]
struct Seen {
    /// Console errors, uncaught exceptions and log errors, one line each.
    errors: Vec<String>,
    /// The URL of every request, in order.
    requests: Vec<String>,
    /// How many load events the tab's main frame fired.
    loads: u64,
}

impl Seen {
    fn record(&mut self, method: &str, params: &Value) {
        let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
        match method {
            "Runtime.consoleAPICalled" => {
                let kind = text(&params["type"]);
                if kind == "error" || kind == "assert" {
                    let words: Vec<String> = params["args"]
                        .as_array()
                        .map(|args| args.iter().map(describe).collect())
                        .unwrap_or_default();
                    self.errors
                        .push(format!("console.{kind}: {}", words.join(" ")));
                }
            }
            "Runtime.exceptionThrown" => {
                let details = &params["exceptionDetails"];
                let what = details.get("exception").map(describe).unwrap_or_default();
                let url = details["url"].as_str().unwrap_or("?");
                let place = |key: &str| details[key].as_u64().unwrap_or(0) + 1;
                self.errors.push(format!(
                    "uncaught exception: {} {what} ({url}:{}:{})",
                    text(&details["text"]),
                    place("lineNumber"),
                    place("columnNumber")
                ));
            }
            "Log.entryAdded" => {
                let entry = &params["entry"];
                if entry["level"] == "error" {
                    self.errors.push(format!(
                        "log ({}): {} {}",
                        text(&entry["source"]),
                        text(&entry["text"]),
                        text(&entry["url"])
                    ));
                }
            }
            "Network.requestWillBeSent" => self.requests.push(text(&params["request"]["url"])),
            "Page.loadEventFired" => self.loads += 1,
            _ => {}
        }
    }
}

/// A console argument or exception (a protocol `RemoteObject`) as text: its value, or its
/// description (an Error's message and stack).
fn describe(object: &Value) -> String {
    match (object.get("value"), object["description"].as_str()) {
        (Some(Value::String(text)), _) => text.clone(),
        (Some(value), _) => value.to_string(),
        (None, Some(description)) => description.to_string(),
        (None, None) => object["type"].as_str().unwrap_or("undefined").to_string(),
    }
}

/// What one chart (`.chart`, see the DOM contract in crates/html) drew.
#[derive(Debug, Clone)]
pub struct ChartPixels {
    /// The chart's element id (`{section anchor}-{kind}`).
    pub id: String,
    /// Its `data-kind`.
    pub kind: String,
    /// How many `<canvas>` elements it holds.
    pub canvases: u64,
    /// How many `<svg>` elements it holds.
    pub svgs: u64,
    /// The pixels of its canvases and SVGs that are not fully transparent.
    pub drawn_pixels: u64,
}

/// One tab of the test binary's Chromium, showing one page (closed on drop).
pub struct Page {
    connection: Arc<Connection>,
    target: String,
    session: String,
    seen: Arc<Mutex<Seen>>,
    url: String,
}

impl Page {
    /// The URL the page was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Console errors (`console.error`, failed `console.assert`), uncaught exceptions and
    /// the browser's log errors (failed loads, blocked resources) seen so far.
    pub fn errors(&self) -> Vec<String> {
        self.seen().errors.clone()
    }

    /// The URL of every request the page made so far, the document's own first.
    pub fn requests(&self) -> Vec<String> {
        self.seen().requests.clone()
    }

    /// The requests that went beyond the page: all but the document's own and the `data:` /
    /// `blob:` URLs, which are the page's inlined contents and need no network.
    pub fn outside_requests(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|url| {
                url != &self.url && !url.starts_with("data:") && !url.starts_with("blob:")
            })
            .collect()
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Calls a protocol method on this tab.
    fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.connection.call(Some(&self.session), method, params)
    }

    /// Evaluates a JavaScript expression in the page (awaiting it if it is a promise) and
    /// returns its value as JSON; a script that throws fails the test.
    pub fn eval(&self, expression: &str) -> Value {
        let evaluated = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .unwrap_or_else(|e| panic!("evaluate `{expression}` on {}: {e}", self.url));
        if let Some(thrown) = evaluated.get("exceptionDetails") {
            let what = thrown.get("exception").map(describe).unwrap_or_default();
            panic!(
                "`{expression}` threw on {}: {} {what}",
                self.url,
                thrown["text"].as_str().unwrap_or_default()
            );
        }
        evaluated["result"]
            .get("value")
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Waits (polling every 50 ms, at most `timeout`) until the JavaScript `condition` is
    /// true; false when it never was.
    pub fn wait_until(&self, condition: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.eval(&format!("Boolean({condition})")) == Value::Bool(true) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the page says it drew all its charts (`<html data-charts-drawn>` equals
    /// `data-charts-expected`) and returns how many that is; fails the test when the page has
    /// no `data-charts-expected`, or does not get there within [`PAGE_TIMEOUT`] (naming the
    /// errors seen, the likely reason).
    pub fn wait_for_charts(&self) -> u64 {
        let expected = self.eval("document.documentElement.dataset.chartsExpected ?? null");
        let expected: u64 = match expected.as_str().map(str::parse) {
            Some(Ok(n)) => n,
            _ => panic!(
                "{}: <html> has no numeric data-charts-expected ({expected})",
                self.url
            ),
        };
        let drawn = "document.documentElement.dataset.chartsDrawn === \
                     document.documentElement.dataset.chartsExpected";
        if !self.wait_until(drawn, PAGE_TIMEOUT) {
            let so_far = self.eval("document.documentElement.dataset.chartsDrawn ?? null");
            panic!(
                "{}: drew {so_far} of {expected} charts in {PAGE_TIMEOUT:?}; errors: {:#?}",
                self.url,
                self.errors()
            );
        }
        expected
    }

    /// What every chart (`.chart` element) drew: the non-transparent pixels of its canvases
    /// (read back with getImageData) and SVGs (rasterised through an image; styles from the
    /// page's stylesheets do not apply there, the SVG's own attributes do).
    pub fn chart_pixels(&self) -> Vec<ChartPixels> {
        self.pixels_of(".chart")
    }

    /// What the elements `selector` finds drew, counted as [`Page::chart_pixels`] counts
    /// charts (for drawings outside the chart contract, such as a live run's).
    pub fn pixels_of(&self, selector: &str) -> Vec<ChartPixels> {
        let selector = Value::String(selector.to_string());
        let charts = self.eval(&format!("({PIXELS_JS})({selector})"));
        let charts = charts.as_array().cloned().unwrap_or_default();
        let text = |chart: &Value, key: &str| chart[key].as_str().unwrap_or("").to_string();
        let number = |chart: &Value, key: &str| chart[key].as_u64().unwrap_or(0);
        charts
            .iter()
            .map(|chart| ChartPixels {
                id: text(chart, "id"),
                kind: text(chart, "kind"),
                canvases: number(chart, "canvases"),
                svgs: number(chart, "svgs"),
                drawn_pixels: number(chart, "drawn_pixels"),
            })
            .collect()
    }

    /// The whole check of a page with charts: waits for them, then asserts there were no
    /// errors, that the page holds as many `.chart` elements as it said it would draw, that
    /// each drew pixels, and that each legend is beside its plot, showing values
    /// ([`Page::assert_legends_beside_plots`]). Returns the charts.
    pub fn assert_charts_drawn_cleanly(&self) -> Vec<ChartPixels> {
        let expected = self.wait_for_charts();
        let errors = self.errors();
        assert!(errors.is_empty(), "{}: errors: {errors:#?}", self.url);
        let charts = self.chart_pixels();
        assert_eq!(
            charts.len() as u64,
            expected,
            "{}: .chart elements vs data-charts-expected: {charts:#?}",
            self.url
        );
        let blank: Vec<&ChartPixels> = charts.iter().filter(|c| c.drawn_pixels == 0).collect();
        assert!(
            blank.is_empty(),
            "{}: charts with nothing drawn: {blank:#?}",
            self.url
        );
        self.assert_legends_beside_plots();
        charts
    }

    /// Saves a PNG screenshot of the page (the whole page, up to `max_height_px` of it) at
    /// `path`.
    pub fn screenshot(&self, path: &Path, max_height_px: u32) {
        let size = self
            .eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]");
        let dimension = |i: usize| size[i].as_f64().unwrap_or(0.0).max(1.0);
        let png = self
            .call(
                "Page.captureScreenshot",
                json!({
                    "format": "png",
                    "clip": {
                        "x": 0.0,
                        "y": 0.0,
                        "width": dimension(0),
                        "height": dimension(1).min(f64::from(max_height_px)),
                        "scale": 1.0,
                    },
                    "fromSurface": true,
                    "captureBeyondViewport": true,
                }),
            )
            .unwrap_or_else(|e| panic!("screenshot {}: {e}", self.url));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png["data"].as_str().unwrap_or_default())
            .unwrap_or_else(|e| panic!("screenshot of {}: {e}", self.url));
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// When `DISKMETER_SCREENSHOTS=DIR` is set, saves the page's screenshot as `DIR/name`
    /// (the docs' images: `DISKMETER_SCREENSHOTS=docs/images cargo test --test ...`).
    pub fn screenshot_for_docs(&self, name: &str) {
        let Some(dir) = std::env::var_os(SCREENSHOTS_ENV) else {
            return;
        };
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        self.screenshot(&dir.join(name), 3200);
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        SESSIONS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.session);
        let _ = self.connection.call(
            None,
            "Target.closeTarget",
            json!({ "targetId": self.target }),
        );
    }
}

/// Counts the drawn pixels of each element a selector finds (see [`Page::chart_pixels`]).
const PIXELS_JS: &str = r#"async (selector) => {
  const drawn = (context, width, height) => {
    const rgba = context.getImageData(0, 0, width, height).data;
    let n = 0;
    for (let alpha = 3; alpha < rgba.length; alpha += 4) if (rgba[alpha] !== 0) n++;
    return n;
  };
  const canvasPixels = (canvas) => {
    if (!canvas.width || !canvas.height) return 0;
    let context = canvas.getContext('2d');
    if (!context) {
      const copy = document.createElement('canvas');
      copy.width = canvas.width; copy.height = canvas.height;
      context = copy.getContext('2d');
      context.drawImage(canvas, 0, 0);
    }
    return drawn(context, canvas.width, canvas.height);
  };
  const svgPixels = (svg) => new Promise((resolve, reject) => {
    const box = svg.getBoundingClientRect();
    const width = Math.ceil(box.width), height = Math.ceil(box.height);
    if (!width || !height) return resolve(0);
    const image = new Image(width, height);
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = width; canvas.height = height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0, width, height);
      resolve(drawn(context, width, height));
    };
    image.onerror = () => reject(new Error('an SVG chart does not load as an image'));
    image.src = 'data:image/svg+xml;charset=utf-8,' +
      encodeURIComponent(new XMLSerializer().serializeToString(svg));
  });
  const charts = [];
  for (const chart of document.querySelectorAll(selector)) {
    let pixels = 0;
    const canvases = chart.querySelectorAll('canvas');
    for (const canvas of canvases) pixels += canvasPixels(canvas);
    const svgs = [...chart.querySelectorAll('svg')].filter((s) => !s.parentElement.closest('svg'));
    for (const svg of svgs) pixels += await svgPixels(svg);
    charts.push({ id: chart.id, kind: chart.dataset.kind ?? '', canvases: canvases.length,
                  svgs: svgs.length, drawn_pixels: pixels });
  }
  return charts;
}"#;

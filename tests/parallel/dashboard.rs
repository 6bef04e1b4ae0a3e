//! `diskmeter serve` through the real binary and plain HTTP (no browser): every page answers
//! with the run it shows, a missing run is a 404 page, the server listens on loopback only
//! unless told with --listen (and answers only requests addressed to it by a local name), Ctrl-C and SIGTERM stop it with exit 0, it never writes the
//! database, and 50 page loads at once all get whole pages.

use crate::common;

use common::serve::Server;
use common::TestDir;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// GET `path` of `server`: (status, body).
fn get_from(server: &Server, path: &str) -> (u16, String) {
    get(&server.url(path))
}

fn get(url: &str) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut response = agent
        .get(url)
        .call()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().expect("read the body");
    (status, body)
}

/// A history with a run named `dash-run` (id 1) and a `quick` suite (id 2), on the null
/// engine: made once per test binary and copied into each test's folder (the server only
/// reads it, but a test may look at its bytes or its folder afterwards).
fn history(dir: &TestDir) -> PathBuf {
    static TEMPLATE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let folder = common::isolate_history().join("dashboard-template");
        std::fs::create_dir_all(&folder).expect("create the template folder");
        make_history(&folder)
    });
    let db = dir.path().join("history.db");
    // The template's diskmeters have exited: its WAL is checkpointed into the main file.
    std::fs::copy(template, &db).expect("copy the template history");
    db
}

fn make_history(folder: &Path) -> PathBuf {
    let db = folder.join("history.db");
    let db_arg = format!("--db={}", db.display());
    common::command()
        .current_dir(folder)
        .args([
            "run",
            "--ioengine=null",
            "--size=16m",
            "--runtime=1",
            "--time_based",
            "--name=dash-run",
            &db_arg,
        ])
        .assert()
        .success();
    common::command()
        .current_dir(folder)
        .args([
            "suite",
            "quick",
            "--quiet",
            "--ioengine=null",
            "--runtime=1",
        ])
        .args(["--size=16m", &db_arg])
        .assert()
        .success();
    db
}

#[test]
fn every_page_answers_with_the_run_it_shows() {
    let dir = TestDir::new();
    let db = history(&dir);
    let server = Server::start(&db, &["--port", "0"]);
    let (status, list) = get_from(&server, "/");
    assert_eq!(status, 200, "{list}");
    assert!(
        list.contains("dash-run") && list.contains("quick"),
        "{list}"
    );
    assert!(list.contains("href=\"/run/1\""), "{list}");
    let (status, run) = get_from(&server, "/run/1");
    assert_eq!(status, 200, "{run}");
    assert!(run.contains("dash-run"), "{run}");
    let (status, suite) = get_from(&server, "/run/2");
    assert_eq!(status, 200, "{suite}");
    assert!(suite.contains("quick"), "{suite}");
    let (status, compare) = get_from(&server, "/compare?a=1&b=1");
    assert_eq!(status, 200, "{compare}");
    assert!(compare.contains("run 1"), "{compare}");
    let (status, picker) = get_from(&server, "/compare");
    assert_eq!(status, 200, "{picker}");
    assert!(picker.contains("dash-run"), "{picker}");
    // A run and a suite have no step in common: the picker again, saying so.
    let (status, picker) = get_from(&server, "/compare?a=1&b=2");
    assert_eq!(status, 422, "{picker}");
    assert!(picker.contains("id=\"compare-problem\""), "{picker}");
}

#[test]
fn the_run_list_filters_and_pages() {
    let dir = TestDir::new();
    let db = history(&dir);
    let server = Server::start(&db, &["--port", "0"]);
    let (status, suites) = get_from(&server, "/?kind=suite");
    assert_eq!(status, 200, "{suites}");
    assert!(
        suites.contains("quick") && !suites.contains("dash-run"),
        "{suites}"
    );
    let (status, runs) = get_from(&server, "/?kind=run&target=&host=&since=&until=");
    assert_eq!(status, 200, "{runs}");
    assert!(
        runs.contains("dash-run") && !runs.contains("/run/2\""),
        "{runs}"
    );
    let (status, none) = get_from(&server, "/?since=2999-01-01");
    assert_eq!(status, 200, "{none}");
    assert!(!none.contains("dash-run"), "{none}");
    let (status, beyond) = get_from(&server, "/?page=2");
    assert_eq!(status, 200, "{beyond}");
    assert!(!beyond.contains("/run/1\""), "{beyond}");
    let (status, bad) = get_from(&server, "/?since=yesterday");
    assert_eq!(status, 400, "{bad}");
    assert!(bad.contains("since=yesterday"), "{bad}");
}

#[test]
fn a_missing_run_or_page_is_a_404_page() {
    let dir = TestDir::new();
    let db = history(&dir);
    let server = Server::start(&db, &["--port", "0"]);
    for path in ["/run/999", "/run/abc", "/nowhere", "/compare?a=1&b=999"] {
        let (status, body) = get_from(&server, path);
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body.contains("<html"), "{path}: an HTML page: {body}");
    }
    let (status, body) = get_from(&server, "/compare?a=x&b=1");
    assert_eq!(status, 400, "{body}");
}

#[test]
fn a_non_loopback_address_needs_listen() {
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    for port in ["1.2.3.4:0", "0.0.0.0:0"] {
        let output = common::process()
            .args(["serve", "--port", port, "--db"])
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{port}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--listen"), "{port}: {stderr}");
        assert!(output.stdout.is_empty(), "{port}: it never listened");
    }
}

#[test]
fn the_default_listens_on_loopback_only() {
    let dir = TestDir::new();
    let db = history(&dir);
    let server = Server::start(&db, &["--port", "0"]);
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    let port: u16 = server
        .url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Another address of this host (the one its default route leaves from), if it has one:
    // nothing listens there.
    let probe = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    if probe.connect("192.0.2.1:9").is_ok() {
        let ip = probe.local_addr().unwrap().ip();
        if !ip.is_loopback() && !ip.is_unspecified() {
            let refused = std::net::TcpStream::connect_timeout(
                &std::net::SocketAddr::new(ip, port),
                Duration::from_secs(2),
            );
            assert!(refused.is_err(), "{ip}:{port} answered");
        }
    }
    // A page of another site that rebinds its name to 127.0.0.1 sends that name as Host.
    assert!(raw_get(port, "evil.example").starts_with("HTTP/1.1 403"));
    assert!(raw_get(port, &format!("localhost:{port}")).starts_with("HTTP/1.1 200"));
    let (code, stderr) = server.stop_with(libc::SIGINT);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// GET / on 127.0.0.1:`port` with this `Host` header: the raw response.
fn raw_get(port: u16, host: &str) -> String {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn listen_serves_any_address_with_a_warning() {
    let dir = TestDir::new();
    let db = history(&dir);
    let server = Server::start(&db, &["--listen", "0.0.0.0:0"]);
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
    let local = server.url.replace("0.0.0.0", "127.0.0.1");
    assert_eq!(get(&local).0, 200);
    let (code, stderr) = server.stop_with(libc::SIGTERM);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains("no authentication"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_stops_it_cleanly_and_it_never_writes_the_database() {
    let dir = TestDir::new();
    let db = history(&dir);
    let before = std::fs::read(&db).unwrap();
    let server = Server::start(&db, &["--port", "0"]);
    for path in ["/", "/run/1", "/run/2", "/compare?a=1&b=1"] {
        assert_eq!(get_from(&server, path).0, 200, "{path}");
    }
    let (code, stderr) = server.stop_with(libc::SIGINT);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database is unchanged"
    );
}

#[test]
fn a_history_that_needs_an_upgrade_is_refused_with_how_to_upgrade_it() {
    let dir = TestDir::new();
    let db = dir.path().join("old.db");
    drop(diskmeter_history::HistoryStore::open_at_version(&db, 2).unwrap());
    let output = common::process()
        .args(["serve", "--port", "0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("run any diskmeter command"), "{stderr}");
    let still_old = diskmeter_history::HistoryStore::open_at_version(&db, 2).unwrap();
    assert_eq!(still_old.schema_version().unwrap(), 2, "not migrated");
}

#[test]
fn a_missing_history_is_served_empty() {
    let dir = TestDir::new();
    let server = Server::start(&dir.path().join("none.db"), &["--port", "0"]);
    let (status, list) = get_from(&server, "/");
    assert_eq!(status, 200, "{list}");
    assert_eq!(get_from(&server, "/run/1").0, 404);
    assert!(
        !dir.path().join("none.db").exists(),
        "serve creates nothing"
    );
}

#[test]
fn fifty_concurrent_page_loads_all_get_whole_pages() {
    let dir = TestDir::new();
    let db = history(&dir);
    let server = Server::start(&db, &["--port", "0"]);
    let paths = ["/", "/run/1", "/run/2", "/compare?a=1&b=1", "/compare"];
    let expected: Vec<String> = paths.iter().map(|p| get_from(&server, p).1).collect();
    let loads: Vec<_> = (0..50)
        .map(|i| {
            let url = format!(
                "{}{}",
                server.url,
                paths[i % paths.len()].trim_start_matches('/')
            );
            std::thread::spawn(move || get(&url))
        })
        .collect();
    for (i, load) in loads.into_iter().enumerate() {
        let (status, body) = load.join().expect("a page load");
        assert_eq!(status, 200, "load {i}");
        let path = paths[i % paths.len()];
        // The run list and picker show the same runs each time; every page is whole.
        assert_eq!(body, expected[i % paths.len()], "load {i} of {path}");
        assert!(body.trim_end().ends_with("</html>"), "load {i} of {path}");
    }
    let (code, stderr) = server.stop_with(libc::SIGINT);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_history_a_version_behind_is_read_as_it_is() {
    let dir = TestDir::new();
    let db = dir.path().join("v5.db");
    drop(diskmeter_history::HistoryStore::open_at_version(&db, 5).unwrap());
    let server = Server::start(&db, &["--port", "0"]);
    let (status, list) = get_from(&server, "/");
    assert_eq!(status, 200, "{list}");
    assert!(list.contains("No run is saved yet"), "{list}");
    drop(server);
    let still = diskmeter_history::HistoryStore::open_at_version(&db, 5).unwrap();
    assert_eq!(still.schema_version().unwrap(), 5, "not migrated");
}

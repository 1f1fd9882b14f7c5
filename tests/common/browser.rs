//! Headless Chromium driven through WebDriver (chromedriver), for tests that look at pages the
//! way a person does: console errors, element sizes, full-page screenshots at a given width.
//!
//! chromedriver runs in its own process group with a private temporary directory; dropping the
//! [`Browser`] kills the group (chromedriver and Chromium, even after a panic) and removes it.

use std::{
    os::unix::process::CommandExt as _,
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use fantoccini::{Client, ClientBuilder, wd::Capabilities, wd::WebDriverCompatibleCommand};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// Fails the test with what to install when chromedriver is missing.
fn require_chromedriver() {
    let found = Command::new("chromedriver").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(
        found,
        "the browser tests need Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; \
         tools/ci/bootstrap.sh installs them)"
    );
}

/// A running chromedriver and a session on headless Chromium.
pub struct Browser {
    child: Child,
    tmp: PathBuf,
    pub client: Client,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's process group.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// Whether chromedriver itself (not another program that took the port) answers `GET /status`
/// on `port`. chromedriver leaves the connection open after its answer, so the answer is read
/// until it names chromedriver, not to its end.
fn driver_answers(port: u16) -> bool {
    use std::io::{Read as _, Write as _};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&response).contains("ChromeDriver") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return false,
            Ok(n) => response.extend_from_slice(&chunk[..n]),
        }
    }
    true
}

/// A POST to a session endpoint with a JSON body (chromedriver's extensions).
#[derive(Debug)]
struct Post(&'static str, Value);

impl WebDriverCompatibleCommand for Post {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/{}", session.unwrap_or_default(), self.0))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.1.to_string()))
    }
}

impl Browser {
    /// Starts chromedriver on a free port and opens a session.
    pub async fn start() -> Browser {
        require_chromedriver();
        // The port is free when picked, but another process may take it before chromedriver
        // binds it: chromedriver then exits, and another port is tried.
        let (child, tmp, port) =
            (0..5).find_map(|_| Self::spawn_driver()).expect("chromedriver listens on one of five free ports");
        let mut caps = Capabilities::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({ "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                              "--hide-scrollbars", "--window-size=1200,900"] }),
        );
        caps.insert("goog:loggingPrefs".into(), json!({ "browser": "ALL" }));
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a browser session");
        Browser { child, tmp, client }
    }

    /// chromedriver on a port free a moment ago, in its own process group and temporary
    /// directory, once it listens; `None` if it exited first.
    fn spawn_driver() -> Option<(Child, PathBuf, u16)> {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let tmp = std::env::temp_dir().join(format!("tabiya-browser-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let mut child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .env("TMPDIR", &tmp)
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let started = Instant::now();
        while !driver_answers(port) {
            if child.try_wait().unwrap().is_some() {
                let _ = std::fs::remove_dir_all(&tmp);
                return None;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "chromedriver did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some((child, tmp, port))
    }

    /// Console messages of level SEVERE since the last call (errors thrown, console.error,
    /// failed loads).
    pub async fn console_errors(&self) -> Vec<String> {
        let log = self.client.issue_cmd(Post("se/log", json!({ "type": "browser" }))).await.expect("browser log");
        log.as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["level"] == "SEVERE")
            .map(|entry| entry["message"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// Runs a script and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.client.execute(script, vec![]).await.expect("script runs")
    }

    /// Width and height of every element matching `selector`.
    pub async fn sizes(&self, selector: &str) -> Vec<(f64, f64)> {
        let script = format!(
            "return [...document.querySelectorAll({selector:?})].map(e => {{ const r = e.getBoundingClientRect(); return [r.width, r.height]; }});"
        );
        let value = self.eval(&script).await;
        value
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| (p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)))
            .collect()
    }

    /// Lays the page out `width` CSS pixels wide (any width: windows cannot go below 500).
    pub async fn set_width(&self, width: u32, height: u32) {
        let params = json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false });
        self.client
            .issue_cmd(Post(
                "goog/cdp/execute",
                json!({ "cmd": "Emulation.setDeviceMetricsOverride", "params": params }),
            ))
            .await
            .expect("viewport set");
    }

    /// A full-page PNG at `width` CSS pixels, written to `path`.
    pub async fn screenshot(&self, width: u32, path: &std::path::Path) {
        self.set_width(width, 900).await;
        let height = self.eval("return document.documentElement.scrollHeight").await.as_u64().unwrap_or(900);
        self.set_width(width, height.min(16_000) as u32).await;
        let png = self.client.screenshot().await.expect("screenshot");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
        self.set_width(width, 900).await;
    }
}

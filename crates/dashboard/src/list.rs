//! The run list's query: the filters (kind, suite, target, host, dates) and the page, as
//! the page's form sends them, checked and turned into the history's [`RunPageQuery`]; and
//! the links to other pages of the same list.

use crate::DashboardError;
use diskmeter_history::{RunFilter, RunPageQuery};
use serde::Deserialize;

/// Runs per page of the list.
pub(crate) const RUNS_PER_PAGE: u32 = 100;

/// The run list's query string as sent (every field text: a malformed value gets an error
/// page that names it, not a bare 400).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ListQuery {
    kind: Option<String>,
    suite: Option<String>,
    target: Option<String>,
    host: Option<String>,
    since: Option<String>,
    until: Option<String>,
    page: Option<String>,
}

/// The run list's query, checked: empty fields are no filter.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ListRequest {
    /// Only this kind of run.
    pub kind: Option<String>,
    /// Only runs with this name (a suite's).
    pub suite: Option<String>,
    /// Only targets containing this text.
    pub target: Option<String>,
    /// Only runs made on this host.
    pub host: Option<String>,
    /// Only runs started at or after this UTC date, as given.
    pub since: Option<String>,
    /// Only runs started before this UTC date, as given.
    pub until: Option<String>,
    since_unix_ms: Option<u64>,
    until_unix_ms: Option<u64>,
    /// The page, from 1.
    pub page: u64,
}

impl ListQuery {
    /// The checked request; a malformed date or page is a [`DashboardError::BadRequest`].
    pub(crate) fn to_request(&self) -> Result<ListRequest, DashboardError> {
        let field = |value: &Option<String>| {
            value
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let date = |name: &str, value: &Option<String>| -> Result<Option<u64>, DashboardError> {
            field(value)
                .map(|text| {
                    diskmeter_report::format::parse_utc_date_ms(&text).ok_or_else(|| {
                        DashboardError::BadRequest(format!(
                            "{name}={text}: give a UTC date as YYYY-MM-DD or YYYY-MM-DDTHH:MM"
                        ))
                    })
                })
                .transpose()
        };
        let page = match field(&self.page) {
            None => 1,
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|p| *p >= 1)
                .ok_or_else(|| {
                    DashboardError::BadRequest(format!("page={text}: give a page number from 1"))
                })?,
        };
        Ok(ListRequest {
            kind: field(&self.kind),
            suite: field(&self.suite),
            target: field(&self.target),
            host: field(&self.host),
            since: field(&self.since),
            until: field(&self.until),
            since_unix_ms: date("since", &self.since)?,
            until_unix_ms: date("until", &self.until)?,
            page,
        })
    }
}

impl ListRequest {
    /// The history query for this request's page of `page_size` runs.
    pub(crate) fn page_query(&self, page_size: u32) -> RunPageQuery {
        RunPageQuery {
            filter: RunFilter {
                kind: self.kind.clone(),
                name: self.suite.clone(),
                target_contains: self.target.clone(),
                since_unix_ms: self.since_unix_ms,
                until_unix_ms: self.until_unix_ms,
                limit: None,
            },
            hostname: self.host.clone(),
            offset: (self.page - 1).saturating_mul(u64::from(page_size)),
            page_size,
        }
    }

    /// Whether any filter is set.
    pub(crate) fn filtered(&self) -> bool {
        [
            &self.kind,
            &self.suite,
            &self.target,
            &self.host,
            &self.since,
            &self.until,
        ]
        .iter()
        .any(|f| f.is_some())
    }

    /// The link to page `page` of the same filtered list.
    pub(crate) fn href(&self, page: u64) -> String {
        let mut pairs: Vec<String> = [
            ("kind", &self.kind),
            ("suite", &self.suite),
            ("target", &self.target),
            ("host", &self.host),
            ("since", &self.since),
            ("until", &self.until),
        ]
        .iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={}", encode(v))))
        .collect();
        if page > 1 {
            pairs.push(format!("page={page}"));
        }
        if pairs.is_empty() {
            "/".to_string()
        } else {
            format!("/?{}", pairs.join("&"))
        }
    }
}

/// `text` percent-encoded for a query string value (RFC 3986 unreserved characters kept).
fn encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> ListQuery {
        let mut query = ListQuery::default();
        for (name, value) in pairs {
            let value = Some(value.to_string());
            match *name {
                "kind" => query.kind = value,
                "target" => query.target = value,
                "since" => query.since = value,
                "page" => query.page = value,
                _ => unreachable!(),
            }
        }
        query
    }

    #[test]
    fn empty_fields_are_no_filter_and_the_first_page_is_1() {
        let request = query(&[("kind", ""), ("target", "  ")])
            .to_request()
            .unwrap();
        assert!(!request.filtered());
        assert_eq!(request.page, 1);
        assert_eq!(request.href(1), "/");
        assert_eq!(request.page_query(100).offset, 0);
    }

    #[test]
    fn page_links_keep_the_filters_encoded() {
        let request = query(&[("kind", "suite"), ("target", "/mnt/a b&c"), ("page", "3")])
            .to_request()
            .unwrap();
        assert_eq!(request.page_query(100).offset, 200);
        assert_eq!(
            request.href(4),
            "/?kind=suite&target=%2Fmnt%2Fa%20b%26c&page=4"
        );
    }

    #[test]
    fn a_malformed_date_or_page_is_a_bad_request_naming_it() {
        for (name, value) in [("since", "yesterday"), ("page", "0"), ("page", "x")] {
            let error = query(&[(name, value)]).to_request().unwrap_err();
            assert!(matches!(error, DashboardError::BadRequest(_)), "{error}");
            assert!(
                error.to_string().contains(&format!("{name}={value}")),
                "{error}"
            );
        }
    }
}

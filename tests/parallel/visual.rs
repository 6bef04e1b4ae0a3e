//! What people look at, in one test binary so its history is made once (about 20 s) and one
//! Chromium serves every page: `diskmeter report` read from file:// ([`report`]), `diskmeter
//! serve`'s pages ([`dashboard`]), both in headless Chromium (tests/common/browser.rs), and
//! `diskmeter chart` writing every chart as PNG and SVG ([`charts`]). The history
//! ([`history`]) holds one run of each kind the views draw.

#[path = "../common/mod.rs"]
mod common;
#[path = "../seed/mod.rs"]
mod seed;

mod charts;
mod dashboard;
mod history;
mod report;

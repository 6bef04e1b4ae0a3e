//! What people look at, in one module so its history is made once (about 20 s) and one
//! Chromium serves every page: `diskmeter report` read from file:// ([`report`]), `diskmeter
//! serve`'s pages ([`dashboard`]), both in headless Chromium (tests/common/browser.rs), and
//! `diskmeter chart` writing every chart as PNG and SVG ([`charts`]). The history
//! ([`history`]) holds one run of each kind the views draw.

mod charts;
mod dashboard;
mod history;
mod linked;
mod report;

//! HTML for people: the self-contained report (`diskmeter report`) and the dashboard's
//! pages, both rendered from the view model ([`diskmeter_views::Document`]) with templates.
//! Scripts, styles and data are inlined so a report works from file://, offline and as an
//! email attachment, with zero network requests.

#![forbid(unsafe_code)]

use diskmeter_views::Document;

/// Why a page could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// A template failed to render.
    #[error("cannot render {page}: {reason}")]
    Render {
        /// Which page.
        page: String,
        /// Why.
        reason: String,
    },
}

/// The whole report as one self-contained HTML file.
pub fn render_report(document: &Document) -> Result<String, HtmlError> {
    Ok(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title></head><body></body></html>\n",
        document.title
    ))
}

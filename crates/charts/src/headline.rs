//! A result's headline as a PNG for chat and tickets (`diskmeter report --png FILE`): the
//! section's title, then its cards (IOPS, bandwidth, p50 and p99 latency, CPU per IO) as the
//! report draws them, then a line per verdict. The figures are the view model's
//! ([`diskmeter_views::headline::Headline`]); nothing is computed here.

use crate::{draw_error, register, ChartError};
use diskmeter_views::headline::Headline;
use diskmeter_views::{Document, Section, Tone};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The image's width, pixels; its height grows by [`VERDICT_HEIGHT`] per verdict.
pub const HEADLINE_WIDTH: u32 = 1200;
/// The height of the title and the cards, pixels.
pub const HEADLINE_HEIGHT: u32 = 220;
/// The height each verdict line adds, pixels.
pub const VERDICT_HEIGHT: u32 = 34;

/// The first section of `document` (depth first) that has headline cards, as (title,
/// headline).
pub fn first_headline(document: &Document) -> Option<(&str, &Headline)> {
    fn walk(section: &Section) -> Option<(&str, &Headline)> {
        if let Some(cards) = &section.cards {
            return Some((&section.title, cards));
        }
        section.children.iter().find_map(walk)
    }
    document.sections.iter().find_map(walk)
}

/// The size of the PNG [`write_headline_png`] draws for `headline`: (width, height).
pub fn headline_size(headline: &Headline) -> (u32, u32) {
    (
        HEADLINE_WIDTH,
        HEADLINE_HEIGHT + VERDICT_HEIGHT * headline.verdicts.len() as u32,
    )
}

/// Writes the headline cards of `document`'s first result (see [`first_headline`]) to
/// `path` as PNG; the image's size is [`headline_size`].
pub fn write_headline_png(document: &Document, path: &Path) -> Result<(u32, u32), ChartError> {
    let (title, headline) = first_headline(document).ok_or_else(|| ChartError::NoHeadline {
        path: path.display().to_string(),
    })?;
    let size = headline_size(headline);
    register();
    let root = BitMapBackend::new(path, size).into_drawing_area();
    draw(&root, title, headline).map_err(draw_error(path))?;
    Ok(size)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    headline: &Headline,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const INK: RGBColor = RGBColor(0x1b, 0x1f, 0x24);
    const MUTED: RGBColor = RGBColor(0x59, 0x63, 0x6e);
    const LINE: RGBColor = RGBColor(0xd0, 0xd7, 0xde);
    const PANEL: RGBColor = RGBColor(0xf6, 0xf8, 0xfa);
    const MARGIN: i32 = 24;
    const GAP: i32 = 12;
    root.fill(&WHITE)?;
    let top_left = Pos::new(HPos::Left, VPos::Top);
    let text =
        |size: f64, color: RGBColor| ("sans-serif", size).into_font().color(&color).pos(top_left);
    root.draw(&Text::new(title.to_string(), (MARGIN, 18), text(26.0, INK)))?;
    let count = headline.cards.len().max(1) as i32;
    let width = (HEADLINE_WIDTH as i32 - 2 * MARGIN - GAP * (count - 1)) / count;
    let (top, bottom) = (66, 66 + 134);
    for (i, card) in headline.cards.iter().enumerate() {
        let left = MARGIN + i as i32 * (width + GAP);
        root.draw(&Rectangle::new(
            [(left, top), (left + width, bottom)],
            PANEL.filled(),
        ))?;
        root.draw(&Rectangle::new(
            [(left, top), (left + width, bottom)],
            LINE.stroke_width(1),
        ))?;
        let x = left + 14;
        root.draw(&Text::new(
            card.label.to_uppercase(),
            (x, top + 14),
            text(15.0, MUTED),
        ))?;
        root.draw(&Text::new(
            card.value.clone(),
            (x, top + 42),
            text(38.0, INK),
        ))?;
        // The detail's parts on lines of their own: "completion latency", "read 2.88 us ...".
        for (line, part) in card.detail.split("; ").enumerate() {
            root.draw(&Text::new(
                part.to_string(),
                (x, top + 92 + 18 * line as i32),
                text(13.0, MUTED),
            ))?;
        }
    }
    for (i, verdict) in headline.verdicts.iter().enumerate() {
        let y = (HEADLINE_HEIGHT + VERDICT_HEIGHT * i as u32) as i32;
        let color = match verdict.tone {
            Tone::Good => RGBColor(0x1a, 0x7f, 0x37),
            Tone::Bad => RGBColor(0xcf, 0x22, 0x2e),
            Tone::Neutral | Tone::Plain => MUTED,
        };
        root.draw(&Text::new(
            verdict.evidence.clone(),
            (MARGIN, y),
            text(16.0, color),
        ))?;
    }
    root.present()
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_views::headline::{Card, VerdictCard};
    use diskmeter_views::SectionKind;

    #[test]
    fn the_png_has_the_cards_size_and_a_coloured_line_per_verdict() {
        let card = |label: &str, value: &str| Card {
            label: label.into(),
            value: value.into(),
            detail: "read 1.00 ms; write 2.00 ms".into(),
        };
        let verdict = |verdict: &str, tone| VerdictCard {
            verdict: verdict.into(),
            tone,
            what: "read-lat-p99 <= 2 ms".into(),
            evidence: format!("{verdict} read-lat-p99 <= 2 ms: measured 2.41 ms"),
        };
        let mut step = Section::new("run-1-step-0", "Step 1 of 1: t", SectionKind::Step);
        step.cards = Some(Headline {
            cards: vec![card("IOPS", "13.1k"), card("p99 latency", "2.41 ms")],
            verdicts: vec![verdict("MISSED", Tone::Bad), verdict("MET", Tone::Good)],
        });
        // The first section with cards is found below one without.
        let mut run = Section::new("run-1", "Run 1: t", SectionKind::Run);
        run.children.push(step);
        let document = Document {
            title: "t".into(),
            diskmeter_version: "0".into(),
            generated_unix_ms: 0,
            sections: vec![run],
        };
        let dir = std::env::temp_dir().join(format!("dm-headline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h.png");
        let size = write_headline_png(&document, &path).unwrap();
        assert_eq!(size, (HEADLINE_WIDTH, HEADLINE_HEIGHT + 2 * VERDICT_HEIGHT));
        let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((info.width, info.height), size);
        let pixels: Vec<&[u8]> = buffer[..info.buffer_size()].chunks(3).collect();
        let count = |rgb: [u8; 3]| pixels.iter().filter(|p| **p == rgb).count();
        assert!(count([0xf6, 0xf8, 0xfa]) > 50_000, "the card panels");
        assert!(count([0xcf, 0x22, 0x2e]) > 20, "the missed verdict in red");
        assert!(count([0x1a, 0x7f, 0x37]) > 20, "the met verdict in green");
        std::fs::remove_dir_all(&dir).unwrap();

        let empty = Document {
            sections: vec![Section::new("run-2", "Capture 2", SectionKind::Capture)],
            ..document
        };
        let error = write_headline_png(&empty, &path).unwrap_err();
        assert!(error.to_string().contains("capture has none"), "{error}");
    }
}

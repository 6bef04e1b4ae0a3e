//! The one terminal table renderer: every table diskmeter prints as text (`history list`,
//! `show`, `compare`, `analyze`, `sweep`, `suite`, `requirements`, `capture`) goes through
//! [`TextTable`], so they share one look (Markdown-style ASCII that pastes into an issue or a
//! wiki page) and only this module knows the table crate.
//!
//! A command builds the cells (its view of a result) and this module draws them; it decides
//! nothing about what a figure is or how it is formatted.

use comfy_table::{presets, CellAlignment, Table};
use std::fmt;

/// A text table: a header row, body rows and which columns are right-aligned (numbers).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextTable {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    right_aligned: Vec<usize>,
}

impl TextTable {
    /// A table with these column headings and no rows yet.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> TextTable {
        TextTable {
            header: header.into_iter().map(Into::into).collect(),
            ..TextTable::default()
        }
    }

    /// Adds a body row (one cell per column).
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) -> &mut Self {
        self.rows.push(cells.into_iter().map(Into::into).collect());
        self
    }

    /// Right-aligns these columns (0 is the first), heading included: the columns of numbers.
    pub fn align_right(&mut self, columns: impl IntoIterator<Item = usize>) -> &mut Self {
        self.right_aligned.extend(columns);
        self
    }

    /// The number of columns of the header.
    pub fn columns(&self) -> usize {
        self.header.len()
    }
}

impl From<&crate::Table> for TextTable {
    /// A view's table for the terminal: its cells' text, and the columns that hold numbers
    /// right-aligned (the caption is the caller's to print or not).
    fn from(view: &crate::Table) -> TextTable {
        let mut table = TextTable::new(view.columns.iter().cloned());
        for row in &view.rows {
            table.row(row.iter().map(|cell| cell.text.clone()));
        }
        let numeric = (0..view.columns.len()).filter(|&i| {
            view.rows
                .iter()
                .any(|row| row.get(i).is_some_and(|c| c.numeric))
        });
        table.align_right(numeric);
        table
    }
}

impl fmt::Display for TextTable {
    /// The table drawn with no trailing newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut table = Table::new();
        table
            .load_preset(presets::ASCII_MARKDOWN)
            .set_header(self.header.clone());
        for row in &self.rows {
            table.add_row(row.clone());
        }
        for &i in &self.right_aligned {
            if let Some(column) = table.column_mut(i) {
                column.set_cell_alignment(CellAlignment::Right);
            }
        }
        write!(f, "{table}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_markdown_with_its_number_columns_on_the_right() {
        let mut table = TextTable::new(["step", "IOPS"]);
        table.row(["a", "1"]).row(["bb", "1,000"]).align_right([1]);
        assert_eq!(
            table.to_string(),
            "| step |  IOPS |\n|------|-------|\n| a    |     1 |\n| bb   | 1,000 |"
        );
    }

    #[test]
    fn a_column_past_the_last_is_ignored() {
        let mut table = TextTable::new(["x"]);
        table.row(["1"]).align_right([3]);
        assert_eq!(table.to_string(), "| x |\n|---|\n| 1 |");
    }
}

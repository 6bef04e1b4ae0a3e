//! The rows of the option table for files options (see the module doc of `options`).

use super::OptionDef;

/// The files rows.
pub(super) static ROWS: &[OptionDef] = &[];

//! The rows of the option table for system options (see the module doc of `options`).

use super::OptionDef;

/// The system rows.
pub(super) static ROWS: &[OptionDef] = &[];

//! The rows of the option table for control options (see the module doc of `options`).

use super::OptionDef;

/// The control rows.
pub(super) static ROWS: &[OptionDef] = &[];

//! Whether a configuration can be built at all: the catalog's own published figures say some
//! cannot, whatever their caps would allow (more data disks than the VM size attaches, a
//! premium disk on a size without premium storage). Such a configuration is "not possible"
//! with its reasons; it never "meets" a demand and the optimiser never proposes one.
//!
//! Only published facts make a configuration impossible. The guide's rules of thumb (a size
//! "usually" takes 2 x cores data disks when its own figure is not in the catalog, the widest
//! stripe of a family) stay warnings: the size may well take more (DS14_v2 does).

use crate::model::Configuration;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::fmt;

/// One reason a configuration cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotPossible {
    /// More data disks than the VM size attaches (its published `max_data_disks`).
    TooManyDisks {
        /// The VM size id.
        vm: String,
        /// The disks asked for.
        disks: u32,
        /// The most the size attaches.
        max_data_disks: u32,
    },
    /// A premium disk on a VM size without premium-storage support.
    PremiumDiskOnStandardVm {
        /// The disk tier id.
        disk: String,
        /// The VM size id.
        vm: String,
    },
}

impl NotPossible {
    /// The JSON `kind`: `too_many_disks`, `premium_disk_on_standard_vm`.
    pub fn kind(&self) -> &'static str {
        match self {
            NotPossible::TooManyDisks { .. } => "too_many_disks",
            NotPossible::PremiumDiskOnStandardVm { .. } => "premium_disk_on_standard_vm",
        }
    }
}

impl fmt::Display for NotPossible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotPossible::TooManyDisks {
                vm,
                disks,
                max_data_disks,
            } => write!(
                f,
                "{disks} data disks, but {vm} takes at most {max_data_disks}"
            ),
            NotPossible::PremiumDiskOnStandardVm { disk, vm } => write!(
                f,
                "{disk} is a premium disk and {vm} does not support premium storage"
            ),
        }
    }
}

/// `{"kind": "too_many_disks", "reason": "40 data disks, but ...", "vm": ..., ...}`: the
/// reason as the terminal prints it, and the figures for scripts.
impl Serialize for NotPossible {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reason = self.to_string();
        match self {
            NotPossible::TooManyDisks {
                vm,
                disks,
                max_data_disks,
            } => {
                let mut s = serializer.serialize_struct("NotPossible", 5)?;
                s.serialize_field("kind", self.kind())?;
                s.serialize_field("reason", &reason)?;
                s.serialize_field("vm", vm)?;
                s.serialize_field("disks", disks)?;
                s.serialize_field("max_data_disks", max_data_disks)?;
                s.end()
            }
            NotPossible::PremiumDiskOnStandardVm { disk, vm } => {
                let mut s = serializer.serialize_struct("NotPossible", 4)?;
                s.serialize_field("kind", self.kind())?;
                s.serialize_field("reason", &reason)?;
                s.serialize_field("disk", disk)?;
                s.serialize_field("vm", vm)?;
                s.end()
            }
        }
    }
}

/// Every reason `config` cannot be built; empty when it can. A volume without a VM has no
/// VM limits to break.
pub fn not_possible(config: &Configuration) -> Vec<NotPossible> {
    let Some(vm) = config.vm else {
        return Vec::new();
    };
    let mut reasons = Vec::new();
    if config.disk.premium && !vm.premium_storage {
        reasons.push(NotPossible::PremiumDiskOnStandardVm {
            disk: config.disk.id.clone(),
            vm: vm.id.clone(),
        });
    }
    if let Some(max) = vm.max_data_disks {
        if config.disk_count > max {
            reasons.push(NotPossible::TooManyDisks {
                vm: vm.id.clone(),
                disks: config.disk_count,
                max_data_disks: max,
            });
        }
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Slice;
    use crate::{Catalog, HostCache};

    fn config<'c>(c: &'c Catalog, vm: &str, disk: &str, n: u32) -> Configuration<'c> {
        Configuration {
            vm: Some(c.vm(vm).unwrap()),
            disk: c.disk(disk).unwrap(),
            disk_count: n,
            cache: HostCache::ReadOnly,
        }
    }

    #[test]
    fn published_limits_make_a_configuration_impossible() {
        let c = Catalog::builtin_slice(Slice::Guides);
        assert_eq!(
            not_possible(&config(&c, "DS14", "P30", 40)),
            [NotPossible::TooManyDisks {
                vm: "Standard_DS14".into(),
                disks: 40,
                max_data_disks: 32
            }]
        );
        assert_eq!(
            not_possible(&config(&c, "D14", "P30", 1))[0].to_string(),
            "P30 is a premium disk and Standard_D14 does not support premium storage"
        );
        assert!(not_possible(&config(&c, "DS14", "P30", 32)).is_empty());
        assert!(not_possible(&config(&c, "D14", "S30", 32)).is_empty());
        // The guide's 2 x cores rule is not a published figure: a warning, not impossible.
        assert!(not_possible(&config(&c, "DS14_v2", "P30", 40)).is_empty());
    }

    #[test]
    fn json_carries_the_kind_the_reason_and_the_figures() {
        let c = Catalog::builtin_slice(Slice::Guides);
        let v = serde_json::to_value(not_possible(&config(&c, "DS1", "P30", 3))).unwrap();
        assert_eq!(v[0]["kind"], "too_many_disks");
        assert_eq!(
            v[0]["reason"],
            "3 data disks, but Standard_DS1 takes at most 2"
        );
        assert_eq!(v[0]["max_data_disks"], 2);
    }
}

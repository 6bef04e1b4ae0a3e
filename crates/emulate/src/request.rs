//! `diskmeter emulate create`'s request as typed (sizes and caps in fio's size syntax), made
//! into the [`EmulationSpec`] to create: a profile's caps with the given ones over them.

use crate::{profile_caps, Caps, EmulateError, EmulationSpec, GivenCaps};
use diskmeter_plan::Catalog;
use diskmeter_units::{parse_size, KbBase};
use std::path::PathBuf;

/// `emulate create`'s caps, each as (flag, value name, help), in [`CreateRequest::caps`]'s
/// order.
pub const CAP_FLAGS: [(&str, &str, &str); 6] = [
    ("iops", "N", "IOPS cap, both directions"),
    (
        "bw",
        "RATE",
        "Bandwidth cap, both directions (e.g. 200m = 200 MiB/s)",
    ),
    ("read-iops", "N", "Read IOPS cap"),
    ("write-iops", "N", "Write IOPS cap"),
    ("read-bw", "RATE", "Read bandwidth cap"),
    ("write-bw", "RATE", "Write bandwidth cap"),
];

/// What `emulate create` was given.
#[derive(Debug, Clone, Copy)]
pub struct CreateRequest<'a> {
    /// `--name` (default: the profile, in lower case, else `custom`).
    pub name: Option<&'a str>,
    /// `--profile`: a catalog tier.
    pub profile: Option<&'a str>,
    /// `--size`.
    pub size: &'a str,
    /// `--disks`.
    pub disks: u32,
    /// `--dir`: the folder of the backing files.
    pub dir: &'a str,
    /// The caps given, each with its flag's name: IOPS and bandwidth in both directions,
    /// then read IOPS, write IOPS, read bandwidth and write bandwidth.
    pub caps: [(&'static str, Option<&'a str>); 6],
    /// `--burst-iops`, `--burst-bw`, `--burst-time`, over the profile's bucket.
    pub burst: [Option<&'a str>; 3],
}

impl CreateRequest<'_> {
    /// The emulation asked for: the profile's caps (if any) with the given caps over them.
    pub fn spec(&self, catalog: &Catalog) -> Result<EmulationSpec, EmulateError> {
        let (caps, profile_burst) = match self.profile {
            Some(p) => (
                profile_caps(p, catalog)?.1,
                crate::profile_burst(p, catalog)?,
            ),
            None => (Caps::default(), None),
        };
        let size = |flag: &str, text: &str| {
            parse_size(text, KbBase::Binary).map_err(|e| EmulateError::Value {
                flag: flag.to_string(),
                problem: e,
            })
        };
        let mut given = [None; 6];
        for (number, (flag, text)) in given.iter_mut().zip(self.caps) {
            *number = text.map(|text| size(flag, text)).transpose()?;
        }
        let [iops, bytes_per_sec, read_iops, write_iops, read_bytes_per_sec, write_bytes_per_sec] =
            given;
        let caps = caps.overridden(&GivenCaps {
            iops,
            bytes_per_sec,
            read_iops,
            write_iops,
            read_bytes_per_sec,
            write_bytes_per_sec,
        });
        if caps == Caps::default() {
            return Err(EmulateError::NoCaps);
        }
        let burst = crate::burst_for(profile_burst, &caps, self.burst, "")?;
        let name = self.name.map(str::to_string);
        let name = name.or_else(|| self.profile.map(|p| p.to_ascii_lowercase()));
        Ok(EmulationSpec {
            name: name.unwrap_or_else(|| "custom".to_string()),
            size_bytes: size("size", self.size)?,
            caps,
            dir: PathBuf::from(self.dir),
            owner_pid: None,
            disks: self.disks,
            burst,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(profile: Option<&'a str>, iops: Option<&'a str>) -> CreateRequest<'a> {
        CreateRequest {
            name: None,
            profile,
            size: "1g",
            disks: 1,
            dir: ".",
            caps: [
                ("iops", iops),
                ("bw", None),
                ("read-iops", None),
                ("write-iops", None),
                ("read-bw", None),
                ("write-bw", None),
            ],
            burst: [None; 3],
        }
    }

    #[test]
    fn given_caps_lie_over_the_profiles_and_name_it() {
        let catalog = Catalog::builtin();
        let spec = request(Some("Azure-P30"), Some("1k"))
            .spec(&catalog)
            .unwrap();
        assert_eq!(spec.name, "azure-p30");
        assert_eq!(spec.caps.read_iops, Some(1024));
        assert_eq!(spec.caps.read_bytes_per_sec, Some(200 << 20));
        assert_eq!(spec.size_bytes, 1 << 30);
        let custom = request(None, Some("500")).spec(&catalog).unwrap();
        assert_eq!(custom.name, "custom");
        assert_eq!(custom.burst, None);
        // A bursting profile brings its bucket; given figures lie over it.
        let p10 = request(Some("azure-p10"), None).spec(&catalog).unwrap();
        assert_eq!(p10.burst.unwrap().iops, Some(3500));
        let mut quick = request(Some("azure-p10"), None);
        quick.burst = [None, None, Some("12s")];
        let quick = quick.spec(&catalog).unwrap().burst.unwrap();
        assert_eq!(quick.iops_bucket(&p10.caps), Some((500, 3500, 36_000)));
    }

    #[test]
    fn no_cap_or_a_bad_one_is_refused_naming_the_flag() {
        let catalog = Catalog::builtin();
        let none = request(None, None).spec(&catalog).unwrap_err();
        assert!(matches!(none, EmulateError::NoCaps));
        let bad = request(None, Some("lots")).spec(&catalog).unwrap_err();
        assert!(bad.to_string().starts_with("--iops: "), "{bad}");
    }
}

//! Kubernetes' rules for the names and quantities a manifest carries, checked before any
//! document is built so a bad one is a usage error here and not a rejection by the API
//! server later.

use crate::ManifestError;

/// The longest name the Job may have. Pods of an Indexed Job are named `NAME-INDEX-xxxxx`
/// and take the host name `NAME-INDEX`, which must stay within a 63-character DNS label;
/// 52 leaves room for an index of up to 5 digits and the controller's suffix.
pub const MAX_NAME_CHARS: usize = 52;

/// Whether `text` is an RFC 1123 DNS label of at most `max` characters: lower-case letters,
/// digits and '-', starting and ending with a letter or digit.
fn is_dns_label(text: &str, max: usize) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= max
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

/// Whether `text` is an RFC 1123 DNS subdomain: dot-separated labels, 253 characters at most
/// (the names of storage classes and claims).
fn is_dns_subdomain(text: &str) -> bool {
    text.len() <= 253 && text.split('.').all(|label| is_dns_label(label, 63))
}

/// The Job's (and ConfigMap's) name, checked.
pub fn check_name(what: &'static str, name: &str) -> Result<(), ManifestError> {
    if is_dns_label(name, MAX_NAME_CHARS) {
        return Ok(());
    }
    Err(ManifestError::Name {
        what,
        value: name.to_string(),
        rule: format!(
            "lower-case letters, digits and '-', starting and ending with a letter or digit, \
             at most {MAX_NAME_CHARS} characters (the pods add -INDEX-xxxxx)"
        ),
    })
}

/// A namespace's name, checked (a DNS label of up to 63 characters).
pub fn check_namespace(namespace: &str) -> Result<(), ManifestError> {
    if is_dns_label(namespace, 63) {
        return Ok(());
    }
    Err(ManifestError::Name {
        what: "--namespace",
        value: namespace.to_string(),
        rule: "lower-case letters, digits and '-', starting and ending with a letter or \
               digit, at most 63 characters"
            .into(),
    })
}

/// A storage class's or a claim's name, checked (a DNS subdomain).
pub fn check_object_name(what: &'static str, name: &str) -> Result<(), ManifestError> {
    if is_dns_subdomain(name) {
        return Ok(());
    }
    Err(ManifestError::Name {
        what,
        value: name.to_string(),
        rule: "lower-case letters, digits, '-' and '.', each dot-separated part starting and \
               ending with a letter or digit"
            .into(),
    })
}

/// The default name of the Kubernetes objects for jobs named `job_names`: `diskmeter-` and
/// the names made DNS-safe (lower case, other characters as '-'), cut to
/// [`MAX_NAME_CHARS`].
pub fn default_name(job_names: &[&str]) -> String {
    let mut safe = String::new();
    for c in job_names.join("-").chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            safe.push(c);
        } else if !safe.ends_with('-') && !safe.is_empty() {
            safe.push('-');
        }
    }
    let mut name = if safe.starts_with("diskmeter") {
        safe
    } else {
        format!("diskmeter-{safe}")
    };
    name.truncate(MAX_NAME_CHARS);
    name.trim_end_matches('-').to_string()
}

/// `bytes` as a Kubernetes quantity: the largest binary suffix that divides it exactly
/// (`100Gi`, `1536Mi`), else plain bytes.
pub fn quantity_of_bytes(bytes: u64) -> String {
    const SUFFIXES: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let mut best = bytes.to_string();
    let mut unit: u64 = 1;
    for suffix in SUFFIXES {
        unit <<= 10;
        if bytes == 0 || !bytes.is_multiple_of(unit) {
            break;
        }
        best = format!("{}{suffix}", bytes / unit);
    }
    best
}

/// Checks a CPU or memory quantity as Kubernetes writes them: a decimal number (`2`, `0.5`)
/// with an optional suffix (`m`, `k`, `M`, `G`, `T`, `P`, `E`, `Ki`, `Mi`, `Gi`, `Ti`, `Pi`,
/// `Ei`).
pub fn check_quantity(what: &'static str, text: &str) -> Result<(), ManifestError> {
    const SUFFIXES: [&str; 13] = [
        "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "m", "k", "M", "G", "T", "P", "E",
    ];
    let number = SUFFIXES
        .iter()
        .find_map(|s| text.strip_suffix(s))
        .unwrap_or(text);
    let mut parts = number.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let fraction = parts.next();
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let ok = digits(whole)
        && fraction.is_none_or(|f| !f.is_empty() && digits(f))
        && !(whole.is_empty() && fraction.is_none())
        && number.bytes().any(|b| b != b'0' && b != b'.');
    if ok {
        return Ok(());
    }
    Err(ManifestError::Name {
        what,
        value: text.to_string(),
        rule: "a positive Kubernetes quantity such as 2, 500m, 1Gi or 512Mi".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_dns_labels() {
        assert!(check_name("--k8s-name", "bench-1").is_ok());
        for bad in [
            "",
            "Bench",
            "-a",
            "a-",
            "a_b",
            &"a".repeat(MAX_NAME_CHARS + 1),
        ] {
            assert!(check_name("--k8s-name", bad).is_err(), "{bad:?}");
        }
        assert!(check_object_name("--storage-class", "fast.ssd-1").is_ok());
        assert!(check_object_name("--storage-class", "fast..ssd").is_err());
    }

    #[test]
    fn default_names_are_dns_safe() {
        assert_eq!(default_name(&["randread"]), "diskmeter-randread");
        assert_eq!(default_name(&["diskmeter-default"]), "diskmeter-default");
        assert_eq!(
            default_name(&["Read 4K", "write_64k"]),
            "diskmeter-read-4k-write-64k"
        );
        let long = default_name(&[&"x".repeat(100)]);
        assert_eq!(long.len(), MAX_NAME_CHARS);
        assert!(check_name("name", &long).is_ok());
    }

    #[test]
    fn quantities_use_the_largest_exact_binary_suffix() {
        assert_eq!(quantity_of_bytes(100 << 30), "100Gi");
        assert_eq!(quantity_of_bytes(1536 << 20), "1536Mi");
        assert_eq!(quantity_of_bytes(1000), "1000");
        assert_eq!(quantity_of_bytes(1 << 40), "1Ti");
    }

    #[test]
    fn cpu_and_memory_quantities() {
        for good in ["2", "500m", "0.5", "1Gi", "512Mi", "1.5G"] {
            assert!(check_quantity("--cpu", good).is_ok(), "{good}");
        }
        for bad in ["", "0", "two", "1.", ".", "1gb", "-1", "Gi"] {
            assert!(check_quantity("--cpu", bad).is_err(), "{bad}");
        }
    }
}

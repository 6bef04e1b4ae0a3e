//! [`signatures`] on regular files standing in for devices: each signature is found at every
//! offset its format puts it, and a blank or unrelated image holds none; and what a refusal
//! offers instead ([`alternative`]) for the reasons the loop-device matrix cannot make. (tests/parallel/safety.rs and
//! tests/parallel/safety_matrix.rs show the same on real loop devices, through every front-end.)

use super::*;
use std::io::Write;

const IMAGE_BYTES: u64 = 16 << 20;

/// The signatures of a 16 MiB sparse image with `bytes` written at each `(offset, bytes)`.
fn found(writes: &[(u64, &[u8])]) -> Vec<&'static str> {
    let mut file = tempfile::tempfile().unwrap();
    file.set_len(IMAGE_BYTES).unwrap();
    for (offset, bytes) in writes {
        file.write_all_at(bytes, *offset).unwrap();
    }
    file.flush().unwrap();
    signatures(&file, IMAGE_BYTES)
}

const MD_MAGIC: &[u8] = &[0xfc, 0x4e, 0x2b, 0xa9];

#[test]
fn a_blank_image_holds_nothing() {
    assert!(found(&[]).is_empty());
    assert!(found(&[(1 << 20, b"LABELONE"), (8 << 20, b"LUKS\xba\xbe")]).is_empty());
}

#[test]
fn md_superblocks_are_found_at_each_version_s_offset() {
    // mdadm(8), "--metadata": 0.90 and 1.0 near the end, 1.1 at the start, 1.2 4 KiB in.
    let v0_90 = (IMAGE_BYTES & !65535) - 65536;
    let v1_0 = (IMAGE_BYTES & !4095) - 8192;
    for offset in [v0_90, v1_0, 0, 4096] {
        assert_eq!(
            found(&[(offset, MD_MAGIC)]),
            vec!["an MD RAID member superblock"],
            "at {offset}"
        );
    }
}

#[test]
fn an_lvm_label_is_found_in_any_of_the_first_four_sectors() {
    for sector in 0..4u64 {
        assert_eq!(
            found(&[(sector * 512, b"LABELONE")]),
            vec!["an LVM physical volume"]
        );
    }
}

#[test]
fn luks_is_found_by_its_first_header_or_a_luks2_second_copy() {
    assert_eq!(
        found(&[(0, b"LUKS\xba\xbe")]),
        vec!["a LUKS encrypted volume"]
    );
    for kib in [16u64, 64, 512, 4096] {
        assert_eq!(
            found(&[(kib << 10, b"SKUL\xba\xbe")]),
            vec!["a LUKS encrypted volume"],
            "second copy at {kib} KiB"
        );
    }
}

#[test]
fn swap_is_found_for_every_page_size() {
    for page in [4096u64, 8192, 16384, 65536] {
        assert_eq!(
            found(&[(page - 10, b"SWAPSPACE2")]),
            vec!["a swap area"],
            "page {page}"
        );
    }
}

#[test]
fn partition_tables_and_filesystems_are_named() {
    assert_eq!(
        found(&[(510, &[0x55, 0xAA]), (512, b"EFI PART")]),
        vec![
            "a partition table or boot sector (MBR signature)",
            "a GPT partition table"
        ]
    );
    assert_eq!(
        found(&[(1080, &[0x53, 0xEF])]),
        vec!["an ext2/3/4 filesystem"]
    );
    assert_eq!(
        found(&[(65536 + 64, b"_BHRfS_M")]),
        vec!["a btrfs filesystem"]
    );
}

#[test]
fn a_refusal_offers_the_strongest_reasons_alternative() {
    let mounted = InUseReason::Mounted {
        mount_point: "/".to_string(),
    };
    let holders = InUseReason::Holders(vec!["dm-0".to_string(), "md127".to_string()]);
    let ext4 = InUseReason::Signature("an ext2/3/4 filesystem");
    assert_eq!(
        alternative(&[ext4, mounted, holders], None),
        "use a file on its filesystem instead: --filename=/diskmeter.dat"
    );
    let holders = InUseReason::Holders(vec!["dm-0".to_string(), "md127".to_string()]);
    let lvm = InUseReason::Signature("an LVM physical volume");
    assert_eq!(
        alternative(&[lvm, holders], None),
        "use a file on the filesystem of /dev/dm-0, /dev/md127 instead (it is built on this device)"
    );
    let swap = [
        InUseReason::ActiveSwap,
        InUseReason::Signature("a swap area"),
    ];
    let swap = alternative(&swap, None);
    assert!(
        swap.starts_with("it is the system's swap: use a file on a mounted filesystem"),
        "{swap}"
    );
    let unread = InUseReason::CannotRead(std::io::Error::from_raw_os_error(13));
    assert!(alternative(&[unread], None).starts_with("run as a user who may read the device"));
    // allow_mounted_write lifted the mounted reason: the mount point is still the way on.
    let ext4 = InUseReason::Signature("an ext2/3/4 filesystem");
    assert_eq!(
        alternative(&[ext4], Some("/mnt/x")),
        "use a file on its filesystem instead: --filename=/mnt/x/diskmeter.dat"
    );
}

//! Disk images that hold what the tools of each kind write, made byte by byte because the
//! machines the tests run on have none of those tools (no sfdisk, pvcreate, mdadm or
//! cryptsetup; no device-mapper or md in the kernel). Each follows its format's document,
//! cited at the function, closely enough that blkid(8) names it (checked when the loop device
//! is made: see `targets.rs`). The partition tables are also laid out for the kernel's
//! own parsers (the protective MBR, both GPT headers and their checksums), which the test
//! VM's kernel is built without, so that is not checked here.

/// 512-byte sectors: the loop devices' logical block size.
const SECTOR: usize = 512;

/// An image of `bytes` zero bytes.
pub fn blank(bytes: usize) -> Vec<u8> {
    vec![0u8; bytes]
}

fn put(image: &mut [u8], at: usize, bytes: &[u8]) {
    image[at..at + bytes.len()].copy_from_slice(bytes);
}

fn put_u16_le(image: &mut [u8], at: usize, value: u16) {
    put(image, at, &value.to_le_bytes());
}

fn put_u32_le(image: &mut [u8], at: usize, value: u32) {
    put(image, at, &value.to_le_bytes());
}

fn put_u64_le(image: &mut [u8], at: usize, value: u64) {
    put(image, at, &value.to_le_bytes());
}

/// The reflected CRC-32 register (polynomial 0xEDB88320) after `bytes`, from `start`, with no
/// final inversion: both GPT's CRC-32 and LVM2's label checksum are this register.
fn crc32_register(start: u32, bytes: &[u8]) -> u32 {
    let mut crc = start;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & 0u32.wrapping_sub(crc & 1));
        }
    }
    crc
}

/// The CRC-32 of GPT headers and partition arrays (UEFI 2.10, 4.2 "CRC-32": the ISO 3309
/// CRC, as zlib's crc32).
fn crc32(bytes: &[u8]) -> u32 {
    !crc32_register(!0, bytes)
}

/// One MBR partition entry (16 bytes at 446 + 16 x slot): boot flag, type, first LBA and
/// length in sectors (the CHS fields are left zero, as modern tools allow).
fn mbr_entry(image: &mut [u8], slot: usize, kind: u8, first_lba: u32, sectors: u32) {
    let at = 446 + 16 * slot;
    image[at] = 0x00;
    image[at + 4] = kind;
    put_u32_le(image, at + 8, first_lba);
    put_u32_le(image, at + 12, sectors);
    put(image, 510, &[0x55, 0xAA]);
}

/// An MBR ("dos") partition table with one Linux partition (type 0x83) from 1 MiB to the
/// end: the classic layout of the PC BIOS boot sector (the entry layout of Microsoft's
/// "Master Boot Record" documentation; util-linux libblkid/src/partitions/dos.c reads it).
pub fn mbr(bytes: usize) -> Vec<u8> {
    let mut image = blank(bytes);
    let sectors = (bytes / SECTOR) as u32;
    mbr_entry(&mut image, 0, 0x83, 2048, sectors - 2048);
    image
}

/// The partition type GUID of a Linux filesystem, 0FC63DAF-8483-4772-8E79-3D69D8477DE4, in
/// GPT's mixed-endian byte order (the first three fields little-endian).
const LINUX_FS_GUID: [u8; 16] = [
    0xAF, 0x3D, 0xC6, 0x0F, 0x83, 0x84, 0x72, 0x47, 0x8E, 0x79, 0x3D, 0x69, 0xD8, 0x47, 0x7D, 0xE4,
];

/// A GUID partition table with one Linux partition from 1 MiB to the last usable sector:
/// the protective MBR, the header at LBA 1 and its 128-entry array at LBA 2, and the backup
/// array and header at the end (UEFI Specification 2.10, 5.2.3 "Protective MBR" and 5.3
/// "GUID Partition Table (GPT) Disk Layout", tables 5-5 and 5-6).
pub fn gpt(bytes: usize) -> Vec<u8> {
    const ENTRIES: usize = 128;
    const ENTRY_BYTES: usize = 128;
    const ARRAY_SECTORS: u64 = (ENTRIES * ENTRY_BYTES / SECTOR) as u64;
    let mut image = blank(bytes);
    let last_lba = (bytes / SECTOR) as u64 - 1;
    mbr_entry(&mut image, 0, 0xEE, 1, (last_lba) as u32);
    let mut array = vec![0u8; ENTRIES * ENTRY_BYTES];
    put(&mut array, 0, &LINUX_FS_GUID);
    put(&mut array, 16, b"diskmeter-test-1");
    let last_usable = last_lba - 1 - ARRAY_SECTORS;
    put_u64_le(&mut array, 32, 2048);
    put_u64_le(&mut array, 40, last_usable);
    for (i, unit) in "data".encode_utf16().enumerate() {
        put_u16_le(&mut array, 56 + 2 * i, unit);
    }
    let array_crc = crc32(&array);
    let header = |my_lba: u64, alternate_lba: u64, array_lba: u64| {
        let mut header = vec![0u8; 92];
        put(&mut header, 0, b"EFI PART");
        put_u32_le(&mut header, 8, 0x0001_0000);
        put_u32_le(&mut header, 12, 92);
        put_u64_le(&mut header, 24, my_lba);
        put_u64_le(&mut header, 32, alternate_lba);
        put_u64_le(&mut header, 40, 2 + ARRAY_SECTORS);
        put_u64_le(&mut header, 48, last_usable);
        put(&mut header, 56, b"diskmeter-disk-1");
        put_u64_le(&mut header, 72, array_lba);
        put_u32_le(&mut header, 80, ENTRIES as u32);
        put_u32_le(&mut header, 84, ENTRY_BYTES as u32);
        put_u32_le(&mut header, 88, array_crc);
        let crc = crc32(&header);
        put_u32_le(&mut header, 16, crc);
        header
    };
    let sector = |lba: u64| lba as usize * SECTOR;
    put(&mut image, sector(1), &header(1, last_lba, 2));
    put(&mut image, sector(2), &array);
    let backup_array = last_lba - ARRAY_SECTORS;
    put(&mut image, sector(backup_array), &array);
    put(
        &mut image,
        sector(last_lba),
        &header(last_lba, 1, backup_array),
    );
    image
}

/// An LVM2 physical volume's label as pvcreate writes it, in sector 1: `LABELONE`, the
/// sector number, the checksum of the rest of the sector, the offset of the PV header and
/// `LVM2 001`, then the PV header (its UUID, the device size, one data area from 1 MiB and
/// one metadata area at 4 KiB). Layout: LVM2's lib/label/label.h (`label_header`) and
/// lib/format_text/layout.h (`pv_header`, `disk_locn`); the checksum is lib/misc/crc.c's,
/// a CRC-32 register started at 0xf597a6cf and not inverted (libblkid's lvm.c checks it).
pub fn lvm2_label(bytes: usize) -> Vec<u8> {
    let mut image = blank(bytes);
    let mut label = vec![0u8; SECTOR];
    put(&mut label, 0, b"LABELONE");
    put_u64_le(&mut label, 8, 1);
    put_u32_le(&mut label, 20, 32);
    put(&mut label, 24, b"LVM2 001");
    put(&mut label, 32, b"DiskMeterTestPhysicalVolume00001");
    put_u64_le(&mut label, 64, bytes as u64);
    // Two lists of (offset, size) pairs, each ended by a zero pair: the data areas (one from
    // 1 MiB, size 0 = to the end; 88..104 ends the list), then the metadata areas.
    put_u64_le(&mut label, 72, 1 << 20);
    put_u64_le(&mut label, 104, 4096);
    put_u64_le(&mut label, 112, (1 << 20) - 4096);
    let crc = crc32_register(0xf597_a6cf, &label[20..]);
    put_u32_le(&mut label, 16, crc);
    put(&mut image, SECTOR, &label);
    image
}

/// The md superblock of a RAID 1 member with mdadm's default metadata 1.2: version 1 at
/// 4 KiB from the start (mdadm(8), "--metadata"), little-endian, its checksum over the
/// 256-byte superblock and the roles of its `max_dev` devices (the kernel's
/// include/uapi/linux/raid/md_p.h, `struct mdp_superblock_1`, and `calc_sb_1_csum` in
/// drivers/md/md.c).
pub fn md_v1_2(bytes: usize) -> Vec<u8> {
    const MAX_DEV: usize = 2;
    let mut image = blank(bytes);
    let mut sb = vec![0u8; 256 + 2 * MAX_DEV];
    put_u32_le(&mut sb, 0, 0xa92b_4efc);
    put_u32_le(&mut sb, 4, 1);
    put(&mut sb, 16, b"diskmeter-md-set");
    put(&mut sb, 32, b"diskmeter:0");
    put_u32_le(&mut sb, 72, 1);
    let data_sectors = (bytes / SECTOR) as u64 - 2048;
    put_u64_le(&mut sb, 80, data_sectors);
    put_u32_le(&mut sb, 92, 2);
    put_u64_le(&mut sb, 128, 2048);
    put_u64_le(&mut sb, 136, data_sectors);
    put_u64_le(&mut sb, 144, 4096 / SECTOR as u64);
    put(&mut sb, 168, b"diskmeter-md-dev");
    put_u64_le(&mut sb, 200, 1);
    put_u32_le(&mut sb, 220, MAX_DEV as u32);
    put_u16_le(&mut sb, 256, 0);
    put_u16_le(&mut sb, 258, 1);
    // The sum of the little-endian 32-bit words, with the checksum field (216) zero,
    // folded from 64 to 32 bits.
    let sum: u64 = sb
        .chunks(4)
        .map(|w| u64::from(u32::from_le_bytes(w.try_into().unwrap_or([0; 4]))))
        .sum();
    let csum = ((sum & 0xffff_ffff) + (sum >> 32)) as u32;
    put_u32_le(&mut sb, 216, csum);
    put(&mut image, 4096, &sb);
    image
}

/// A LUKS2 volume's binary headers as cryptsetup 2 writes them: the first at 0 (`LUKS\xba\xbe`,
/// version 2, a 16 KiB header area, its UUID and its own offset) and the second copy at
/// 16 KiB (`SKUL\xba\xbe`, offset 16 KiB), big-endian (the "LUKS2 On-Disk Format
/// Specification", 2 "Binary header"). The header checksum and the JSON area are left
/// blank: blkid and diskmeter know the volume by its magic, version and offsets, and no key
/// is needed to show it holds data.
pub fn luks2(bytes: usize) -> Vec<u8> {
    const HEADER_AREA: usize = 16 << 10;
    let mut image = blank(bytes);
    for (offset, magic) in [(0usize, b"LUKS\xba\xbe"), (HEADER_AREA, b"SKUL\xba\xbe")] {
        let mut header = vec![0u8; 512];
        put(&mut header, 0, magic);
        put(&mut header, 6, &2u16.to_be_bytes());
        put(&mut header, 8, &(HEADER_AREA as u64).to_be_bytes());
        put(&mut header, 16, &1u64.to_be_bytes());
        put(&mut header, 72, b"sha256");
        put(&mut header, 168, b"6b1bdbe0-44a4-4f43-9a61-5d8b4bd0c3a1");
        put(&mut header, 256, &(offset as u64).to_be_bytes());
        put(&mut image, offset, &header);
    }
    image
}

/// A swap area as mkswap(8) makes it on 4 KiB pages: version 1, the last page and a UUID at
/// 1 KiB, and `SWAPSPACE2` in the last 10 bytes of the first page (the kernel's
/// include/linux/swap.h, `union swap_header`).
pub fn swap(bytes: usize) -> Vec<u8> {
    let mut image = blank(bytes);
    put_u32_le(&mut image, 1024, 1);
    put_u32_le(&mut image, 1028, (bytes / 4096) as u32 - 1);
    put(&mut image, 1036, b"diskmeter-swap-1");
    put(&mut image, 4096 - 10, b"SWAPSPACE2");
    image
}

#[test]
fn the_checksums_are_the_documented_ones() {
    // zlib's check value for CRC-32 ("123456789" -> 0xCBF43926).
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
}

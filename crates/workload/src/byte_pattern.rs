//! fio's byte pattern syntax, as `buffer_pattern` (and fio's `verify_pattern`) write it:
//! `0x` hex, `"quoted strings"` and decimal numbers, one after another. Checked against the
//! bytes fio 3.33 writes.

use crate::files::FilesError;

/// Parses fio's byte pattern syntax (`buffer_pattern`): a sequence of `0x` hex (two digits a
/// byte, in order), `"quoted strings"` and decimal numbers (little-endian in as few bytes as
/// hold them; negative numbers as 32-bit two's complement), written one after the other
/// (`"ab"0x01`). fio 3.33 writes `0x55AA` as 55 aa, `300` as 2c 01, `-12` as f4 ff ff ff.
pub fn parse_byte_pattern(text: &str) -> Result<Vec<u8>, FilesError> {
    let mut bytes = Vec::new();
    let mut rest = text.trim();
    let piece_error = |piece: &str| FilesError::PatternPiece {
        piece: piece.to_string(),
    };
    while !rest.is_empty() {
        if let Some(body) = rest.strip_prefix('"') {
            let end = body.find('"').ok_or_else(|| piece_error(rest))?;
            bytes.extend_from_slice(&body.as_bytes()[..end]);
            rest = &body[end + 1..];
        } else if let Some(body) = rest.strip_prefix('\'') {
            let end = body.find('\'').unwrap_or(body.len());
            return Err(FilesError::PatternFile {
                path: body[..end].to_string(),
            });
        } else if let Some(body) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let len = body
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(body.len());
            let digits = &body[..len];
            if digits.is_empty() {
                return Err(piece_error(rest));
            }
            // An odd count reads as a leading 0 (0xabc is 0a bc).
            let padded = if digits.len() % 2 == 1 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            for pair in padded.as_bytes().chunks(2) {
                let pair = std::str::from_utf8(pair).map_err(|_| piece_error(rest))?;
                bytes.push(u8::from_str_radix(pair, 16).map_err(|_| piece_error(rest))?);
            }
            rest = &body[len..];
        } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let len = rest[1..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(rest.len(), |i| i + 1);
            let number: i64 = rest[..len].parse().map_err(|_| piece_error(rest))?;
            if number < 0 {
                let value = i32::try_from(number).map_err(|_| piece_error(rest))?;
                bytes.extend_from_slice(&value.to_le_bytes());
            } else {
                let le = (number as u64).to_le_bytes();
                let used = (8 - (number as u64).leading_zeros() as usize / 8).max(1);
                bytes.extend_from_slice(&le[..used]);
            }
            rest = &rest[len..];
        } else {
            return Err(piece_error(rest));
        }
        rest = rest.trim_start();
    }
    if bytes.is_empty() {
        return Err(FilesError::EmptyPattern);
    }
    Ok(bytes)
}

/// Prints a byte pattern so [`parse_byte_pattern`] reads it back (as hex).
pub fn show_byte_pattern(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 + bytes.len() * 2);
    text.push_str("0x");
    for byte in bytes {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_patterns_give_the_bytes_fio_writes() {
        assert_eq!(parse_byte_pattern("\"abcd\"").unwrap(), b"abcd");
        assert_eq!(parse_byte_pattern("0x55AA").unwrap(), [0x55, 0xaa]);
        assert_eq!(parse_byte_pattern("-12").unwrap(), [0xf4, 0xff, 0xff, 0xff]);
        assert_eq!(parse_byte_pattern("300").unwrap(), [0x2c, 0x01]);
        assert_eq!(parse_byte_pattern("0").unwrap(), [0]);
        assert_eq!(parse_byte_pattern("\"ab\"0x01").unwrap(), b"ab\x01");
        assert_eq!(parse_byte_pattern("0x01\"ab\"").unwrap(), b"\x01ab");
        assert!(matches!(
            parse_byte_pattern("'/tmp/x'"),
            Err(FilesError::PatternFile { .. })
        ));
        assert!(matches!(
            parse_byte_pattern("zz"),
            Err(FilesError::PatternPiece { .. })
        ));
        let bytes = parse_byte_pattern("0xdeadbeef").unwrap();
        assert_eq!(
            parse_byte_pattern(&show_byte_pattern(&bytes)).unwrap(),
            bytes
        );
    }
}

//! The random source of every generator, and the building blocks they share: numbers that
//! probe the edges (zero, one past a limit, `u64::MAX`, negative, overflowing, fractional,
//! exponent forms), unit suffixes, separators and odd Unicode.
//!
//! An input is a pure function of (campaign seed, target, index): [`Gen::for_input`] seeds a
//! fresh generator per input, so a campaign gives the same inputs whatever its thread count,
//! and a failing input can be made again from its index.

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A seeded random source with the choices generators make.
pub struct Gen {
    rng: Xoshiro256PlusPlus,
}

/// SplitMix64's finaliser: spreads neighbouring seeds and indices over the whole state.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A stable hash of a target's name (FNV-1a), so two targets of one campaign seed differ.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Gen {
    /// The generator of input `index` of `target` in a campaign seeded `seed`.
    pub fn for_input(seed: u64, target: &str, index: u64) -> Gen {
        let key = mix(seed ^ mix(index) ^ name_hash(target).rotate_left(17));
        Gen {
            rng: Xoshiro256PlusPlus::seed_from_u64(key),
        }
    }

    /// A generator from a plain seed (tests of the generators themselves).
    pub fn from_seed(seed: u64) -> Gen {
        Gen {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    /// 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // The modulo bias is irrelevant for fuzzing.
        (self.u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.u64() % (hi - lo).saturating_add(1).max(1)
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n.max(1)) == 0
    }

    /// True with `percent` % probability.
    pub fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One of `words` (which must not be empty).
    pub fn word_of(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }

    /// A small count, most often 0..4, sometimes up to `max`.
    pub fn count(&mut self, max: usize) -> usize {
        if self.one_in(8) {
            self.below(max + 1)
        } else {
            self.below(max.min(4) + 1)
        }
    }

    /// A whole number as text that probes the edges more than the middle.
    pub fn number(&mut self) -> String {
        match self.below(16) {
            0 => "0".into(),
            1 => "1".into(),
            2 => "-1".into(),
            3 => u64::MAX.to_string(),
            4 => "18446744073709551616".into(),
            5 => i64::MIN.to_string(),
            6 => u32::MAX.to_string(),
            7 => (u64::from(u32::MAX) + 1).to_string(),
            8 => "99999999999999999999999999999".into(),
            9 => format!("{}", 1u64 << self.below(64)),
            10 => format!("{}", (1u64 << self.below(64)).wrapping_sub(1)),
            11 => format!("-{}", self.range(0, 1 << 20)),
            12 => format!("{}", self.range(0, 100)),
            13 => format!("{}", self.range(0, 65_536)),
            14 => format!("{}", self.u64() >> self.below(64)),
            _ => format!("{}", self.range(1, 4096)),
        }
    }

    /// A decimal or otherwise odd number as text (floats, exponents, NaN, infinities).
    pub fn float(&mut self) -> String {
        match self.below(14) {
            0 => "NaN".into(),
            1 => "inf".into(),
            2 => "-inf".into(),
            3 => "1e308".into(),
            4 => "1e309".into(),
            5 => "-0".into(),
            6 => "0.0".into(),
            7 => "4.9e-324".into(),
            8 => format!("{}.{}", self.range(0, 100), self.range(0, 999)),
            9 => format!("{}e{}", self.range(0, 9), self.range(0, 400)),
            10 => ".5".into(),
            11 => "1.".into(),
            12 => format!("-{}.{}", self.range(0, 1000), self.range(0, 99)),
            _ => self.number(),
        }
    }

    /// A size suffix fio, DiskSpd or the planner might read (or nearly).
    pub fn size_suffix(&mut self) -> &'static str {
        self.word_of(SIZE_SUFFIXES)
    }

    /// A time suffix fio reads (or nearly).
    pub fn time_suffix(&mut self) -> &'static str {
        self.word_of(TIME_SUFFIXES)
    }

    /// A size: a number with a suffix, or an odd form.
    pub fn size(&mut self) -> String {
        match self.below(6) {
            0 => format!("{}{}", self.number(), self.size_suffix()),
            1 => format!("{}{}", self.float(), self.size_suffix()),
            2 => format!("{}-{}", self.size_small(), self.size_small()),
            3 => format!("{}%", self.number()),
            _ => self.size_small(),
        }
    }

    /// A plausible size (`4k`, `1m`, `512`).
    pub fn size_small(&mut self) -> String {
        let n = 1u64 << self.below(12);
        format!(
            "{n}{}",
            self.pick(&["", "k", "K", "m", "g", "KiB", "kB", "MiB", "b"])
        )
    }

    /// A time: a number with a suffix, or an odd form.
    pub fn time(&mut self) -> String {
        match self.below(4) {
            0 => format!("{}{}", self.number(), self.time_suffix()),
            1 => format!("{}{}", self.float(), self.time_suffix()),
            _ => format!("{}{}", self.range(0, 120), self.time_suffix()),
        }
    }

    /// A percentage, in range or not.
    pub fn percent_text(&mut self) -> String {
        match self.below(5) {
            0 => format!("{}%", self.range(0, 100)),
            1 => self.float(),
            2 => self.number(),
            _ => self.range(0, 100).to_string(),
        }
    }

    /// A short piece of odd text: Unicode that breaks byte-index assumptions, control
    /// characters, separators.
    pub fn odd(&mut self) -> &'static str {
        self.word_of(ODD_TEXT)
    }

    /// A word of `len` random letters, digits and `_` (names, typos, garbage).
    pub fn word(&mut self, len: usize) -> String {
        const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz_0123456789ABCXYZ";
        (0..len).map(|_| char::from(*self.pick(CHARS))).collect()
    }

    /// A long run of one piece of text, for inputs whose cost grows with their length.
    pub fn long(&mut self) -> String {
        let unit = self.pick(&["a", "9", "é", "k", "0", " ", ",", ":", "x", "$", "{"]);
        unit.repeat(self.range(256, 20_000) as usize)
    }
}

/// Size suffixes, right and wrong.
const SIZE_SUFFIXES: &[&str] = &[
    "", "", "k", "K", "m", "M", "g", "G", "t", "T", "p", "P", "e", "E", "z", "KiB", "kib", "kB",
    "KB", "MiB", "mb", "GiB", "gB", "TiB", "PiB", "EiB", "b", "B", "%", "kk", "ki", "i", "x", "k ",
    " k", "é", "\u{212A}", "s", "ms",
];

/// Time suffixes, right and wrong.
const TIME_SUFFIXES: &[&str] = &[
    "", "", "s", "ms", "us", "µs", "ns", "m", "min", "h", "d", "msec", "usec", "sec", "S", "Ms",
    "k", "x", "mS", "hh", " s",
];

/// Text that trips parsers: multi-byte characters at every position, combining marks,
/// direction marks, BOM, NUL, line and paragraph separators, full-width digits.
const ODD_TEXT: &[&str] = &[
    "é",
    "e\u{301}",
    "\u{200F}",
    "\u{FEFF}",
    "\u{0}",
    "\u{2028}",
    "\u{85}",
    "\r",
    "\t",
    "\u{FF11}",
    "٣",
    "𝟗",
    "🦀",
    "ß",
    "İ",
    "\u{212A}",
    "\u{10FFFF}",
    "\u{7F}",
    "\\",
    "\"",
    "'",
    "=",
    ",",
    ":",
    ";",
    "#",
    "$",
    "${",
    "}",
    "[",
    "]",
    "%",
    "-",
    "+",
    "/",
    "x",
    "*",
    " ",
    "",
];

//! The words of each option whose value is one of a fixed list, tied to the enum it sets:
//! the list `--help` and the parser offer ([`Word::WORDS`], in fio's order), which variant
//! each word means, and the word a variant is printed as. A row of such an option is a
//! `plain!` row with the shape `Choice<Enum>`.

use crate::control::{ExitWhat, Sequencer, SubmitMode, ThinkTrigger};
use crate::files::{DedupeMode, FadviseHint, Fallocate, LockFile};
use crate::system::CpusAllowedPolicy;
use crate::trim::ErrorClasses;
use crate::SyncMode;
use diskmeter_units::KbBase;

/// An enum set by a word from a fixed list.
pub(crate) trait Word: Sized {
    /// Every word the option accepts, as `--help` and "use one of" messages list them.
    const WORDS: &'static [&'static str];
    /// The variant a word of [`Word::WORDS`] means (`None` for any other word).
    fn from_word(word: &str) -> Option<Self>;
    /// The word the variant is written as, which [`Word::from_word`] reads back.
    fn word(&self) -> &'static str;
}

/// Implements [`Word`] for an enum whose `parse` and `as_str` already speak the words.
macro_rules! words_of {
    ($type:ty, $words:expr) => {
        impl Word for $type {
            const WORDS: &'static [&'static str] = $words;
            fn from_word(word: &str) -> Option<Self> {
                <$type>::parse(word)
            }
            fn word(&self) -> &'static str {
                self.as_str()
            }
        }
    };
}

words_of!(KbBase, &["1024", "1000"]);
words_of!(SyncMode, &["0", "1", "none", "sync", "dsync"]);
words_of!(
    Fallocate,
    &["none", "native", "posix", "keep", "truncate", "0", "1"]
);
words_of!(
    ErrorClasses,
    &["none", "read", "write", "io", "verify", "all", "0", "1"]
);

impl Word for LockFile {
    const WORDS: &'static [&'static str] = &["none", "exclusive", "readwrite"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "none" => Some(LockFile::None),
            "exclusive" => Some(LockFile::Exclusive),
            "readwrite" => Some(LockFile::ReadWrite),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        self.as_str()
    }
}

impl Word for FadviseHint {
    /// fio's `fadvise_hint=1` is the default, advice that follows the job's pattern.
    const WORDS: &'static [&'static str] = &["0", "1", "random", "sequential"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "0" => Some(FadviseHint::Off),
            "1" => Some(FadviseHint::Pattern),
            "random" => Some(FadviseHint::Random),
            "sequential" => Some(FadviseHint::Sequential),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        self.as_str()
    }
}

impl Word for DedupeMode {
    const WORDS: &'static [&'static str] = &["repeat", "working_set"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "repeat" => Some(DedupeMode::Repeat),
            "working_set" => Some(DedupeMode::WorkingSet),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        self.as_str()
    }
}

impl Word for ExitWhat {
    const WORDS: &'static [&'static str] = &["group", "stonewall", "all"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "group" => Some(ExitWhat::Group),
            "stonewall" => Some(ExitWhat::Stonewall),
            "all" => Some(ExitWhat::All),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        self.as_str()
    }
}

impl Word for ThinkTrigger {
    const WORDS: &'static [&'static str] = &["complete", "issue"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "complete" => Some(ThinkTrigger::Complete),
            "issue" => Some(ThinkTrigger::Issue),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            ThinkTrigger::Complete => "complete",
            ThinkTrigger::Issue => "issue",
        }
    }
}

impl Word for SubmitMode {
    const WORDS: &'static [&'static str] = &["inline", "offload"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "inline" => Some(SubmitMode::Inline),
            "offload" => Some(SubmitMode::Offload),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            SubmitMode::Inline => "inline",
            SubmitMode::Offload => "offload",
        }
    }
}

impl Word for Sequencer {
    const WORDS: &'static [&'static str] = &["sequential", "identical"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "sequential" => Some(Sequencer::Sequential),
            "identical" => Some(Sequencer::Identical),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            Sequencer::Sequential => "sequential",
            Sequencer::Identical => "identical",
        }
    }
}

impl Word for CpusAllowedPolicy {
    const WORDS: &'static [&'static str] = &["shared", "split"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "shared" => Some(CpusAllowedPolicy::Shared),
            "split" => Some(CpusAllowedPolicy::Split),
            _ => None,
        }
    }
    fn word(&self) -> &'static str {
        match self {
            CpusAllowedPolicy::Shared => "shared",
            CpusAllowedPolicy::Split => "split",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed word means a variant, and that variant prints as a word that means it
    /// again (`0` and `none` may print as one of them).
    fn round_trips<T: Word + PartialEq + std::fmt::Debug>() {
        for word in T::WORDS {
            let variant = T::from_word(word).unwrap_or_else(|| panic!("{word} means nothing"));
            assert!(T::WORDS.contains(&variant.word()), "{word}");
            assert_eq!(T::from_word(variant.word()), Some(variant), "{word}");
        }
    }

    #[test]
    fn every_word_reads_back() {
        round_trips::<KbBase>();
        round_trips::<SyncMode>();
        round_trips::<Fallocate>();
        round_trips::<ErrorClasses>();
        round_trips::<LockFile>();
        round_trips::<FadviseHint>();
        round_trips::<DedupeMode>();
        round_trips::<ExitWhat>();
        round_trips::<ThinkTrigger>();
        round_trips::<SubmitMode>();
        round_trips::<Sequencer>();
        round_trips::<CpusAllowedPolicy>();
    }
}

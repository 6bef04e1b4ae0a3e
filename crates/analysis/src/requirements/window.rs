//! Time-of-day windows (`normal=09:00-18:00,peak=12:00-13:00,night=22:00-06:00`): which
//! intervals of a capture belong to the guide's normal, peak and off-hours periods.
//!
//! A capture stores UTC timestamps only (the capture host's offset at capture time is not
//! recorded), so windows are read in UTC unless a fixed offset is given (`+02:00`). An interval
//! belongs to a window when its start falls in `[from, to)`; a window whose end is not after
//! its start crosses midnight (`22:00-06:00` is 22:00 to 06:00 the next day), and `24:00` is
//! accepted as an end.

use super::RequirementsError;
use serde::{Serialize, Serializer};

const MINUTES_PER_DAY: u32 = 24 * 60;
const MS_PER_MINUTE: i64 = 60_000;

/// One named time-of-day range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// The name given (`peak`).
    pub name: String,
    /// Start, minutes after midnight.
    #[serde(serialize_with = "clock")]
    pub from: u32,
    /// End (exclusive), minutes after midnight; at or before `from` when it crosses midnight.
    #[serde(serialize_with = "clock")]
    pub to: u32,
}

fn clock<S: Serializer>(minutes: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format_clock(*minutes))
}

/// `HH:MM` of minutes after midnight.
pub fn format_clock(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

impl Window {
    /// True when the minute of the day `minute` (0..1440) is inside the window.
    pub fn contains_minute(&self, minute: u32) -> bool {
        if self.from < self.to {
            (self.from..self.to).contains(&minute)
        } else {
            minute >= self.from || minute < self.to
        }
    }

    /// `09:00-18:00`.
    pub fn range_text(&self) -> String {
        format!("{}-{}", format_clock(self.from), format_clock(self.to))
    }
}

/// The windows asked for and the clock they are read on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowSet {
    /// In the order given.
    pub windows: Vec<Window>,
    /// Offset of the windows' clock from UTC, minutes (0 = windows are UTC times).
    pub utc_offset_minutes: i32,
}

impl WindowSet {
    /// Parses `NAME=HH:MM-HH:MM[,NAME=HH:MM-HH:MM...]`, read at `utc_offset_minutes`.
    pub fn parse(text: &str, utc_offset_minutes: i32) -> Result<WindowSet, RequirementsError> {
        let mut windows: Vec<Window> = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let window = parse_window(entry)?;
            if windows.iter().any(|w| w.name == window.name) {
                return Err(RequirementsError::DuplicateWindow(window.name));
            }
            windows.push(window);
        }
        Ok(WindowSet {
            windows,
            utc_offset_minutes,
        })
    }

    /// Minute of the day, on the windows' clock, of the instant `unix_ms` (UTC).
    pub fn minute_of_day(&self, unix_ms: u64) -> u32 {
        let local_minutes =
            (unix_ms as i64).div_euclid(MS_PER_MINUTE) + self.utc_offset_minutes as i64;
        local_minutes.rem_euclid(MINUTES_PER_DAY as i64) as u32
    }

    /// Indexes of the windows holding an interval that starts at `unix_ms`.
    pub fn matching(&self, unix_ms: u64) -> impl Iterator<Item = usize> + '_ {
        let minute = self.minute_of_day(unix_ms);
        self.windows
            .iter()
            .enumerate()
            .filter(move |(_, w)| w.contains_minute(minute))
            .map(|(i, _)| i)
    }
}

fn parse_window(entry: &str) -> Result<Window, RequirementsError> {
    let bad = |why: &str| RequirementsError::BadWindow {
        text: entry.to_string(),
        why: why.to_string(),
    };
    let (name, range) = entry.split_once('=').ok_or_else(|| bad("no `=`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(bad("no name before `=`"));
    }
    let (from, to) = range
        .split_once('-')
        .ok_or_else(|| bad("no `-` between the times"))?;
    let from = parse_clock(from.trim()).ok_or_else(|| bad("start is not HH:MM (00:00-23:59)"))?;
    let to = parse_clock(to.trim()).ok_or_else(|| bad("end is not HH:MM (00:00-24:00)"))?;
    if from >= MINUTES_PER_DAY {
        return Err(bad("start is not HH:MM (00:00-23:59)"));
    }
    if from == to {
        return Err(bad("start and end are the same time"));
    }
    Ok(Window {
        name: name.to_string(),
        from,
        to: to % MINUTES_PER_DAY,
    })
}

/// `HH:MM` (or `H:MM`, or `HH`) as minutes after midnight; `24:00` is 1440.
fn parse_clock(text: &str) -> Option<u32> {
    let (hours, minutes) = text.split_once(':').unwrap_or((text, "00"));
    if hours.is_empty() || hours.len() > 2 || minutes.len() != 2 {
        return None;
    }
    let hours: u32 = hours.parse().ok()?;
    let minutes: u32 = minutes.parse().ok()?;
    if minutes >= 60 || hours > 24 || (hours == 24 && minutes != 0) {
        return None;
    }
    Some(hours * 60 + minutes)
}

/// Parses a fixed offset from UTC (`+02:00`, `-05:30`, `+0100`, `Z`, `UTC`) into minutes.
pub fn parse_utc_offset(text: &str) -> Result<i32, RequirementsError> {
    let bad = || RequirementsError::BadUtcOffset(text.to_string());
    let trimmed = text.trim();
    if matches!(trimmed.to_ascii_uppercase().as_str(), "Z" | "UTC" | "0") {
        return Ok(0);
    }
    let (sign, rest) = match trimmed.as_bytes().first() {
        Some(b'+') => (1, &trimmed[1..]),
        Some(b'-') => (-1, &trimmed[1..]),
        _ => return Err(bad()),
    };
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let (hours, minutes) = match rest.split_once(':') {
        Some((h, m)) => (h, m),
        // `+0100`: four digits (split by bytes, so they must be digits first).
        None if rest.len() == 4 && digits(rest) => rest.split_at(2),
        None => (rest, "00"),
    };
    // Digits only: `parse` would also take a sign (`+01:-1`).
    if hours.is_empty()
        || hours.len() > 2
        || minutes.len() != 2
        || !digits(hours)
        || !digits(minutes)
    {
        return Err(bad());
    }
    let hours: i32 = hours.parse().map_err(|_| bad())?;
    let minutes: i32 = minutes.parse().map_err(|_| bad())?;
    let total = hours * 60 + minutes;
    if minutes >= 60 || total > 14 * 60 {
        return Err(bad());
    }
    Ok(sign * total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_utc_offset_with_a_multibyte_character_is_refused_not_a_panic() {
        // Four bytes, so it was split at byte 2, inside the `é`.
        for text in ["+1é1", "-é12", "+12é"] {
            assert_eq!(
                parse_utc_offset(text),
                Err(RequirementsError::BadUtcOffset(text.to_string()))
            );
        }
    }

    #[test]
    fn a_utc_offset_with_a_sign_inside_is_refused() {
        for text in ["+01:-1", "++1:00", "+-1", "+01:+5"] {
            assert!(parse_utc_offset(text).is_err(), "{text}");
        }
        assert_eq!(parse_utc_offset("+0130"), Ok(90));
        assert_eq!(parse_utc_offset("-5"), Ok(-300));
    }
}

//! The logs' timestamps as microseconds. Only differences matter (a replay keeps the
//! recorded gaps), so a time is read as written, its zone ignored: one server writes one
//! zone throughout a capture.

use super::Statement;

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn num(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `HH:MM:SS[.frac]` as microseconds of the day.
fn time_of_day(s: &str) -> Option<i64> {
    let (hms, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut parts = hms.split(':');
    let (h, m, sec) = (
        num(parts.next()?.trim_start())?,
        num(parts.next()?)?,
        num(parts.next()?)?,
    );
    if parts.next().is_some() || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let micros = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(6).collect();
        num(&digits)? as i64 * 10i64.pow(6 - digits.len() as u32)
    };
    Some(((h as i64 * 60 + m as i64) * 60 + sec as i64) * 1_000_000 + micros)
}

/// `YYYY-MM-DD` as days.
fn iso_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if s.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (num(&s[..4])?, num(&s[5..7])?, num(&s[8..])?);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| days_from_civil(y as i64, m, d))
}

fn at(days: i64, micros: i64) -> u64 {
    (days * 86_400_000_000 + micros).max(0) as u64
}

/// MySQL 8's `2024-12-07T01:23:45.123456Z` (or `+01:00`).
pub fn iso(s: &str) -> Option<u64> {
    let (date, rest) = s.split_once('T')?;
    let end = rest.find(['Z', '+', '-']).unwrap_or(rest.len());
    Some(at(iso_date(date)?, time_of_day(&rest[..end])?))
}

/// MariaDB's (and MySQL 5.6's) `YYMMDD HH:MM:SS`, the hour padded with a blank.
pub fn short(date: &str, time: &str) -> Option<u64> {
    if date.len() != 6 {
        return None;
    }
    let (y, m, d) = (num(&date[..2])?, num(&date[2..4])?, num(&date[4..])?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(at(
        days_from_civil(2000 + y as i64, m, d),
        time_of_day(time)?,
    ))
}

/// A PostgreSQL log line's leading `%m` or `%t` (`2024-12-07 01:23:45.123 UTC`): its time
/// and the rest of the line after the zone.
pub fn pg_timestamp(line: &str) -> Option<(u64, &str)> {
    let date = line.get(..10)?;
    let days = iso_date(date)?;
    let rest = line[10..].strip_prefix(' ')?;
    let (time, rest) = rest.split_once(' ')?;
    let micros = time_of_day(time)?;
    // The zone: an abbreviation or an offset, up to the prefix's next character.
    let zone_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == ':'))
        .unwrap_or(rest.len());
    if zone_end == 0 {
        return None;
    }
    Some((at(days, micros), &rest[zone_end..]))
}

/// Make every statement's time count from the capture's first one.
pub fn from_first(sessions: &mut [Vec<Statement>]) {
    let Some(first) = sessions.iter().flatten().filter_map(|s| s.at_us).min() else {
        return;
    };
    for s in sessions.iter_mut().flatten() {
        s.at_us = s.at_us.map(|t| t - first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_ways_of_writing_one_moment_agree() {
        let mysql = iso("2026-12-07T01:50:28.250000Z").unwrap();
        let maria = short("261207", " 1:50:28").unwrap();
        let (pg, rest) = pg_timestamp("2026-12-07 01:50:28.250 UTC|postgres|").unwrap();
        assert_eq!(mysql - maria, 250_000);
        assert_eq!(pg, mysql);
        assert_eq!(rest, "|postgres|");
        // 2026-12-07 is 20,794 days after 1970-01-01.
        assert_eq!(maria / 86_400_000_000, 20_794);
    }

    #[test]
    fn what_is_not_a_time_is_refused() {
        assert_eq!(iso("2026-13-07T01:50:28Z"), None);
        assert_eq!(short("261207", "25:00:00"), None);
        assert_eq!(pg_timestamp("2026-12-07 statement"), None);
        assert_eq!(pg_timestamp("LOG:  statement: SELECT 1"), None);
    }
}

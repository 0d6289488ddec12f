//! Quantities with units as written in scenario files: durations ("20ms"), rates ("10Mbit") and
//! sizes ("64KiB"). Every quantity must carry its unit, so that "20" is never silently read as
//! seconds or milliseconds. Each newtype serializes back to a canonical string that parses to
//! the same value, so a resolved scenario round-trips.

use super::limits;
use crate::sim::{Time, MS, NS, SEC, US};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A span of simulated time, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Time);

/// A bit rate in bit/s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Rate(pub u64);

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Bytes(pub u64);

/// How one kind of quantity is written: its units (scale in base units) and an example for
/// error messages.
struct Kind {
    what: &'static str,
    example: &'static str,
    units: &'static [(&'static str, u64)],
    /// Units used when writing a value back, largest first.
    canonical: &'static [(&'static str, u64)],
    /// The largest value a scenario may give, in base units, and how it is written.
    max: (u64, &'static str),
}

const DURATION: Kind = Kind {
    what: "duration",
    example: "20ms",
    units: &[("ns", NS), ("us", US), ("ms", MS), ("s", SEC)],
    canonical: crate::sim::DURATION_UNITS,
    max: (limits::MAX_TIME, "604800s (7 days)"),
};

const K: u64 = 1_000;
const M: u64 = 1_000_000;
const G: u64 = 1_000_000_000;

const RATE: Kind = Kind {
    what: "rate",
    example: "10Mbit",
    units: &[("bit", 1), ("kbit", K), ("Mbit", M), ("Gbit", G), ("bps", 1), ("kbps", K), ("Mbps", M), ("Gbps", G)],
    canonical: crate::sim::RATE_UNITS,
    max: (limits::MAX_RATE, "1000Gbit"),
};

const KI: u64 = 1 << 10;
const MI: u64 = 1 << 20;
const GI: u64 = 1 << 30;

const BYTES: Kind = Kind {
    what: "size",
    example: "1500B",
    units: &[("B", 1), ("KB", K), ("kB", K), ("MB", M), ("GB", G), ("KiB", KI), ("MiB", MI), ("GiB", GI)],
    canonical: crate::sim::SIZE_UNITS,
    max: (limits::MAX_BYTES, "1024GiB"),
};

impl Kind {
    fn unit_list(&self) -> String {
        self.units.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ")
    }

    /// Parses "<decimal><unit>" exactly: decimals are allowed as long as the result is a whole
    /// number of base units (1 ns, 1 bit/s, 1 byte), so nothing is rounded behind the user's back.
    fn parse(&self, text: &str) -> Result<u64, String> {
        let s = text.trim();
        if s.starts_with('-') {
            return Err(format!("expected a non-negative {} such as \"{}\", got \"{text}\"", self.what, self.example));
        }
        let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
        let (number, unit) = (&s[..split], s[split..].trim_start());
        if number.is_empty() {
            return Err(format!("expected a {} such as \"{}\", got \"{text}\"", self.what, self.example));
        }
        if unit.is_empty() {
            return Err(self.missing_unit(number));
        }
        let scale = self.scale(unit)?;
        let (int, frac) = number.split_once('.').unwrap_or((number, ""));
        if int.is_empty() && frac.is_empty() || frac.contains('.') {
            return Err(format!("invalid number \"{number}\" in {} \"{text}\"", self.what));
        }
        let digits = format!("{int}{frac}");
        let too_large = || format!("{} \"{text}\" is too large, expected at most {}", self.what, self.max.1);
        let mantissa: u128 = digits.parse().map_err(|_| too_large())?;
        let divisor = 10u128.checked_pow(frac.len() as u32).ok_or_else(too_large)?;
        let scaled = mantissa.checked_mul(scale as u128).ok_or_else(too_large)?;
        if scaled % divisor != 0 {
            return Err(format!("{} \"{text}\" is not a whole number of {}", self.what, self.units[0].0));
        }
        let value = scaled / divisor;
        let (max, written) = self.max;
        if value > u128::from(max) {
            return Err(format!("{} \"{text}\" is too large, expected at most {written}", self.what));
        }
        Ok(value as u64)
    }

    fn scale(&self, unit: &str) -> Result<u64, String> {
        if let Some((_, scale)) = self.units.iter().find(|(u, _)| *u == unit) {
            return Ok(*scale);
        }
        // Unit prefixes are case-sensitive (mbit would be millibit); point at the intended one.
        let hint = match self.units.iter().find(|(u, _)| u.eq_ignore_ascii_case(unit)) {
            Some((u, _)) => format!(" (did you mean \"{u}\"?)"),
            None => String::new(),
        };
        Err(format!("unknown {} unit \"{unit}\"{hint}, expected one of: {}", self.what, self.unit_list()))
    }

    fn missing_unit(&self, number: &str) -> String {
        format!(
            "{} {number} has no unit; write it with a unit such as \"{}\" (units: {})",
            self.what,
            self.example,
            self.unit_list()
        )
    }

    fn format(&self, value: u64) -> String {
        crate::sim::spell(value, self.canonical)
    }
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
    DURATION.parse(s).map(Duration)
}

pub fn parse_rate(s: &str) -> Result<Rate, String> {
    RATE.parse(s).map(Rate)
}

pub fn parse_bytes(s: &str) -> Result<Bytes, String> {
    BYTES.parse(s).map(Bytes)
}

/// Deserializes a quantity from a string; numbers without a unit are refused with an example.
struct QuantityVisitor(&'static Kind);

impl Visitor<'_> for QuantityVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} with a unit, such as \"{}\"", self.0.what, self.0.example)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<u64, E> {
        self.0.parse(s).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        if v < 0 {
            return Err(E::custom(self.0.parse(&v.to_string()).unwrap_err()));
        }
        Err(E::custom(self.0.missing_unit(&v.to_string())))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Err(E::custom(self.0.missing_unit(&v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        if v < 0.0 {
            return Err(E::custom(self.0.parse(&v.to_string()).unwrap_err()));
        }
        Err(E::custom(self.0.missing_unit(&v.to_string())))
    }
}

macro_rules! quantity_serde {
    ($ty:ident, $kind:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor(&$kind)).map($ty)
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$kind.format(self.0))
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(&$kind.format(self.0))
            }
        }
    };
}

quantity_serde!(Duration, DURATION);
quantity_serde!(Rate, RATE);
quantity_serde!(Bytes, BYTES);

impl Kind {
    /// The JSON Schema of the quantity as written: a string of a decimal and one of the units
    /// (the range and exactness checks stay with the parser).
    fn json_schema(&self, name: &str) -> schemars::Schema {
        let units = self.units.iter().map(|(u, _)| *u).collect::<Vec<_>>().join("|");
        schemars::json_schema!({
            "title": name,
            "description": format!("a {} with a unit ({}), at most {}", self.what, self.unit_list(), self.max.1),
            "type": "string",
            "pattern": format!(r"^\s*([0-9]+\.?[0-9]*|\.[0-9]+)\s*({units})\s*$"),
            "examples": [self.example],
        })
    }
}

macro_rules! quantity_schema {
    ($ty:ident, $kind:expr) => {
        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $kind.json_schema(stringify!($ty))
            }
        }
    };
}

quantity_schema!(Duration, DURATION);
quantity_schema!(Rate, RATE);
quantity_schema!(Bytes, BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_decimals() {
        assert_eq!(parse_duration("20ms"), Ok(Duration(20 * MS)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration(1_500 * MS)));
        assert_eq!(parse_duration("0.5ms"), Ok(Duration(500 * US)));
        assert_eq!(parse_duration(".25s"), Ok(Duration(250 * MS)));
        assert_eq!(parse_duration("7 ns"), Ok(Duration(7)));
        assert_eq!(parse_duration("3us"), Ok(Duration(3 * US)));
    }

    #[test]
    fn rates_and_sizes_parse() {
        assert_eq!(parse_rate("10Mbit"), Ok(Rate(10_000_000)));
        assert_eq!(parse_rate("1.5Gbps"), Ok(Rate(1_500_000_000)));
        assert_eq!(parse_rate("64kbit"), Ok(Rate(64_000)));
        assert_eq!(parse_rate("9600bps"), Ok(Rate(9_600)));
        assert_eq!(parse_bytes("1500B"), Ok(Bytes(1500)));
        assert_eq!(parse_bytes("64KiB"), Ok(Bytes(65_536)));
        assert_eq!(parse_bytes("2kB"), Ok(Bytes(2_000)));
        assert_eq!(parse_bytes("1.5MB"), Ok(Bytes(1_500_000)));
        assert_eq!(parse_bytes("1GiB"), Ok(Bytes(1 << 30)));
    }

    #[test]
    fn malformed_quantities_are_explained() {
        let err = parse_duration("-5ms").unwrap_err();
        assert!(err.contains("expected a non-negative duration such as \"20ms\""), "{err}");
        let err = parse_duration("20").unwrap_err();
        assert!(err.contains("has no unit") && err.contains("\"20ms\""), "{err}");
        let err = parse_rate("10mbit").unwrap_err();
        assert!(err.contains("did you mean \"Mbit\""), "{err}");
        let err = parse_duration("0.5ns").unwrap_err();
        assert!(err.contains("not a whole number of ns"), "{err}");
        let err = parse_bytes("ten B").unwrap_err();
        assert!(err.contains("such as \"1500B\""), "{err}");
        assert!(parse_duration("1.2.3s").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_rate("99999999999999999999Gbit").unwrap_err().contains("too large"));
        // The largest value of each kind parses; one unit more is refused with the bound.
        assert_eq!(parse_duration("604800s"), Ok(Duration(limits::MAX_TIME)));
        let err = parse_duration("18446744073709551615ns").unwrap_err();
        assert!(err.contains("too large, expected at most 604800s (7 days)"), "{err}");
        assert!(parse_duration("604800000000001ns").is_err());
        assert_eq!(parse_rate("1000Gbit"), Ok(Rate(limits::MAX_RATE)));
        assert!(parse_rate("1000000000001bit").unwrap_err().contains("at most 1000Gbit"));
        assert_eq!(parse_bytes("1024GiB"), Ok(Bytes(limits::MAX_BYTES)));
        assert!(parse_bytes("1099511627777B").unwrap_err().contains("at most 1024GiB"));
    }

    #[test]
    fn bare_numbers_are_refused_when_deserializing() {
        #[derive(Deserialize, Debug)]
        struct T {
            #[allow(dead_code)]
            d: Duration,
        }
        let err = toml::from_str::<T>("d = 20").unwrap_err().to_string();
        assert!(err.contains("duration 20 has no unit"), "{err}");
        let err = toml::from_str::<T>("d = -3").unwrap_err().to_string();
        assert!(err.contains("non-negative duration"), "{err}");
    }

    #[test]
    fn canonical_strings_round_trip() {
        let durations = [0, 1, 999, 20 * MS, 1_500 * MS, 60 * SEC, 1_234_567_891];
        for ns in durations {
            let text = Duration(ns).to_string();
            assert_eq!(parse_duration(&text), Ok(Duration(ns)), "{text}");
        }
        assert_eq!(Duration(1_500 * MS).to_string(), "1500ms");
        assert_eq!(Duration(60 * SEC).to_string(), "60s");
        for bps in [0, 1, 9_600, 10_000_000, 1_500_000_000, 123_456_789] {
            let text = Rate(bps).to_string();
            assert_eq!(parse_rate(&text), Ok(Rate(bps)), "{text}");
        }
        assert_eq!(Rate(10_000_000).to_string(), "10Mbit");
        for n in [0, 1, 1514, 65_536, 1_514_000, 1 << 30, 3_000_000_000] {
            let text = Bytes(n).to_string();
            assert_eq!(parse_bytes(&text), Ok(Bytes(n)), "{text}");
        }
        assert_eq!(Bytes(64 * MI).to_string(), "64MiB");
        // Through serde as well, as the resolved scenario is written.
        let json = serde_json::to_string(&Rate(2_500_000)).unwrap();
        assert_eq!(json, "\"2500kbit\"");
        assert_eq!(serde_json::from_str::<Rate>(&json).unwrap(), Rate(2_500_000));
    }
}

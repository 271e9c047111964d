//! The adapter between a request's JSON object and the `#[derive(Deserialize)]`
//! shape that types it.
//!
//! Serde alone gets the types right but not the conversation with an agent:
//! its errors name neither the field (`invalid type: integer `1`, expected a
//! string`) nor the spelling the caller used, it refuses a field spelt twice
//! even when both carry the same value, it treats `null` as a value, and its
//! unknown-field error lists every name instead of the one the caller most
//! likely meant. So a request is read in two steps:
//!
//! - [`Fields`] holds the object and, shape by shape ([`Fields::take`]),
//!   gathers each declared field from any of its spellings: `null` counts as
//!   absent, the same field spelt twice must carry the same value, a missing
//!   required field is named (or, when the caller sent it under a misspelt
//!   name, that name is), and the entries are handed to serde under their
//!   canonical names, in declaration order, so that the first fault of a
//!   request is the first one reported;
//! - serde deserializes them through [`Val`], a deserializer over a borrowed
//!   [`Value`] whose errors carry what the field had to be, turned here into
//!   "`oldText` must be a string, got a number" in the caller's spelling.
//!
//! Fields the hand code reads as raw JSON (a `match` list, the `edits` array)
//! are declared as [`IgnoredAny`](serde::de::IgnoredAny): declared, so they
//! are neither unknown nor walked, and read back with [`Fields::raw`]. What
//! no shape took is refused by [`Fields::finish`], with the accepted name
//! nearest to each unknown field.
//!
//! A shape is declared with [`request_shape!`], which writes the serde
//! attributes (`rename` to the canonical name, one `alias` per other
//! spelling) and the table the adapter reads from the same list, so the
//! spellings of a field are written once.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::Failure;
use crate::printer;

/// A field of a shape: its spellings (the canonical one first) and, for a
/// required field, what it holds (for the "is required (…)" message).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub(crate) spellings: &'static [&'static str],
    pub(crate) required: Option<&'static str>,
}

/// A request shape: a `#[derive(Deserialize)]` struct and its fields, in
/// declaration order. Written by [`request_shape!`].
pub(crate) trait Shape {
    const FIELDS: &'static [Field];
}

/// The spellings of the field of `fields` whose canonical name is
/// `canonical`; a name no field has fails the build (it is evaluated in
/// constants).
pub(crate) const fn spellings(fields: &[Field], canonical: &str) -> &'static [&'static str] {
    let mut i = 0;
    while i < fields.len() {
        if same(fields[i].spellings[0].as_bytes(), canonical.as_bytes()) {
            return fields[i].spellings;
        }
        i += 1;
    }
    panic!("no field of this shape has that name")
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a request shape: the struct with serde's `rename`/`alias`
/// attributes and its [`Shape`] table, from one list of spellings per field.
/// `; required "what"` marks a field the adapter requires.
macro_rules! request_shape {
    (
        $(#[$meta:meta])*
        struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $canon:literal $(| $alias:literal)* $(; required $req:literal)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct $name {
            $(
                $(#[$fmeta])*
                #[serde(rename = $canon $(, alias = $alias)*)]
                $field: $ty,
            )*
        }

        impl $crate::input::fields::Shape for $name {
            const FIELDS: &'static [$crate::input::fields::Field] = &[$(
                $crate::input::fields::Field {
                    spellings: &[$canon $(, $alias)*],
                    required: $crate::input::fields::request_shape!(@required $($req)?),
                },
            )*];
        }
    };
    (@required) => { None };
    (@required $req:literal) => { Some($req) };
}
pub(crate) use request_shape;

/// What serde's `expecting` says of [`Whole`]; its messages show the value
/// sent, not only its kind.
const WHOLE: &str = "a non-negative whole number";

/// 2^53: the most any count is taken as (a larger one means "past
/// anything"; sums of two stay far from overflow).
const MOST: u64 = 1 << 53;

/// A count or a size: a non-negative whole number, also when a JavaScript
/// caller's number arrives as a float (`3.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Whole(pub(crate) u64);

impl<'de> de::Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Whole;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(WHOLE)
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Whole, E> {
                Ok(Whole(n.min(MOST)))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Whole, E> {
                u64::try_from(n)
                    .map(Whole)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(n), &self))
            }
            // (A whole number past 2^53, sent as JSON or by JavaScript,
            // arrives as a float: taken as [`MOST`]: `limit: 1e20` reads to
            // the end, `offset: 1e20` is past it.)
            fn visit_f64<E: de::Error>(self, f: f64) -> Result<Whole, E> {
                if f >= 0.0 && f.is_finite() && f.fract() == 0.0 {
                    Ok(Whole((f as u64).min(MOST)))
                } else {
                    Err(E::invalid_value(de::Unexpected::Float(f), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// Why serde refused a value: what the field had to be, a message of a
/// shape's own type (completed with the request's name), or a failure the
/// adapter wrote whole.
#[derive(Debug)]
pub(crate) enum DeError {
    Expected(String),
    Custom(String),
    Done(Failure),
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DeError::Expected(e) => write!(f, "expected {e}"),
            DeError::Custom(m) => f.write_str(m),
            DeError::Done(failure) => f.write_str(&failure.message),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::Custom(msg.to_string())
    }
    fn invalid_type(_: de::Unexpected, exp: &dyn de::Expected) -> Self {
        DeError::Expected(exp.to_string())
    }
    fn invalid_value(_: de::Unexpected, exp: &dyn de::Expected) -> Self {
        DeError::Expected(exp.to_string())
    }
}

/// A deserializer over one borrowed field value. Strings, numbers and
/// booleans only: arrays and objects are read by hand (declared as
/// `IgnoredAny`, which never walks them), so no input's depth reaches serde.
pub(crate) struct Val<'a>(&'a Value);

impl<'de> Deserializer<'de> for Val<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => v.visit_u64(u),
                (None, Some(i)) => v.visit_i64(i),
                (None, None) => v.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => v.visit_borrowed_str(s),
            Value::Array(_) => Err(de::Error::invalid_type(de::Unexpected::Seq, &v)),
            Value::Object(_) => Err(de::Error::invalid_type(de::Unexpected::Map, &v)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.0 {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        v.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier
    }
}

/// A JSON object being read shape by shape; remembers which keys were used so
/// that leftovers can be reported as unknown.
pub(crate) struct Fields<'a> {
    pub(crate) what: &'a str,
    obj: &'a Map<String, Value>,
    used: Vec<&'a str>,
    /// Every spelling looked for, the names an unknown field is compared
    /// with to suggest the one it was probably meant to be.
    asked: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(value: &'a Value, what: &'a str) -> Result<Self, Failure> {
        match value {
            Value::Object(obj) => Ok(Fields {
                what,
                obj,
                used: Vec::new(),
                asked: Vec::new(),
            }),
            Value::Null => Err(Failure::invalid(printer::input_missing(what))),
            other => Err(Failure::invalid(printer::input_not_object(
                what,
                kind(other),
            ))),
        }
    }

    /// Deserializes the shape `T` from its fields of the object (each under
    /// whichever spelling the caller used), checking them in declaration
    /// order.
    pub(crate) fn take<T: Shape + de::Deserialize<'a>>(&mut self) -> Result<T, Failure> {
        let entries = Entries {
            fields: self,
            shape: T::FIELDS,
            next: 0,
            value: None,
        };
        T::deserialize(entries).map_err(|e| match e {
            DeError::Done(f) => f,
            other => Failure::invalid(printer::field_fault(self.what, &other.to_string())),
        })
    }

    /// The value given under any of `keys`; the same field spelt twice must
    /// carry the same value. `null` counts as absent.
    fn get(
        &mut self,
        keys: &'static [&'static str],
    ) -> Result<Option<(&'a str, &'a Value)>, Failure> {
        let mut found: Option<(&'a str, &'a Value)> = None;
        self.asked.extend_from_slice(keys);
        for &k in keys {
            if let Some((key, v)) = self.obj.get_key_value(k) {
                self.used.push(key);
                if v.is_null() {
                    continue;
                }
                match found {
                    Some((k0, v0)) if v0 != v => {
                        return Err(Failure::invalid(printer::spelt_twice(self.what, k0, k)))
                    }
                    Some(_) => {}
                    None => found = Some((key, v)),
                }
            }
        }
        Ok(found)
    }

    /// The raw value of a field a shape declared (`null` is absent).
    pub(crate) fn raw(&self, keys: &[&str]) -> Option<&'a Value> {
        keys.iter()
            .find_map(|k| self.obj.get(*k).filter(|v| !v.is_null()))
    }

    /// Whether the caller gave any of `keys`, `null` included.
    pub(crate) fn given(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.obj.contains_key(*k))
    }

    /// The spelling among `keys` the caller gave a value under, if any.
    pub(crate) fn spelling(&self, keys: &[&'static str]) -> Option<&'static str> {
        keys.iter()
            .copied()
            .find(|k| self.obj.get(*k).is_some_and(|v| !v.is_null()))
    }

    /// The keys no shape has asked for so far, sorted.
    fn unknown(&self) -> Vec<&'a str> {
        let mut unknown: Vec<&'a str> = self
            .obj
            .keys()
            .map(String::as_str)
            .filter(|k| !self.used.contains(k))
            .collect();
        unknown.sort_unstable();
        unknown
    }

    /// The failure naming `unknown` fields, each with the asked-for name it
    /// is closest to when one is close enough to be a misspelling of it.
    fn unknown_failure(&self, unknown: &[&str]) -> Failure {
        Failure::invalid(printer::unknown_fields(
            self.what,
            unknown.len(),
            &list_unknown(unknown, &self.asked),
        ))
    }

    /// `missing` for a required field given under none of `keys`, unless a
    /// field no shape asked for is a misspelling of one of them: then that
    /// field is named (the caller sent the field, under a wrong name).
    pub(crate) fn missing(&self, keys: &[&str], missing: Failure) -> Failure {
        let misspelt: Vec<&str> = self
            .unknown()
            .into_iter()
            .filter(|k| closest_name(k, keys).is_some())
            .collect();
        if misspelt.is_empty() {
            missing
        } else {
            self.unknown_failure(&misspelt)
        }
    }

    /// Refuse keys that no shape asked for.
    pub(crate) fn finish(self) -> Result<(), Failure> {
        let unknown = self.unknown();
        if unknown.is_empty() {
            return Ok(());
        }
        Err(self.unknown_failure(&unknown))
    }

    /// The failure of a field's value that serde refused.
    fn refused(&self, key: &str, v: &Value, e: DeError) -> DeError {
        let message = match e {
            DeError::Expected(exp) => {
                let got = if exp == WHOLE {
                    short(v)
                } else {
                    kind(v).into()
                };
                printer::field_wrong_type(self.what, key, &exp, &got)
            }
            DeError::Custom(m) => printer::field_fault(self.what, &m),
            done @ DeError::Done(_) => return done,
        };
        DeError::Done(Failure::invalid(message))
    }
}

/// The fields of one shape, handed to serde as a map under their canonical
/// names, in declaration order.
struct Entries<'f, 'a> {
    fields: &'f mut Fields<'a>,
    shape: &'static [Field],
    next: usize,
    /// The value of the field just handed over, with the spelling it came under.
    value: Option<(&'a str, &'a Value)>,
}

impl<'de> Deserializer<'de> for Entries<'_, 'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        v.visit_map(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'a> MapAccess<'a> for Entries<'_, 'a> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        while let Some(field) = self.shape.get(self.next) {
            self.next += 1;
            let canonical = field.spellings[0];
            match self.fields.get(field.spellings).map_err(DeError::Done)? {
                Some(given) => {
                    self.value = Some(given);
                    return seed
                        .deserialize(IntoDeserializer::<DeError>::into_deserializer(canonical))
                        .map(Some);
                }
                None => {
                    if let Some(what) = field.required {
                        let f = &self.fields;
                        return Err(DeError::Done(f.missing(
                            field.spellings,
                            Failure::invalid(printer::field_required(f.what, canonical, what)),
                        )));
                    }
                }
            }
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<S::Value, DeError> {
        let (key, v) = self
            .value
            .take()
            .ok_or_else(|| DeError::Custom("a value asked for before its key".into()))?;
        seed.deserialize(Val(v))
            .map_err(|e| self.fields.refused(key, v, e))
    }
}

/// How many unknown fields a refusal names; the rest are counted.
pub(crate) const UNKNOWN_SHOWN: usize = 8;

/// The most edits a suggestion allows (in a name of more than 10 letters).
const MAX_SLIP: usize = 3;

/// `unknown` as a refusal lists them: the first [`UNKNOWN_SHOWN`], each
/// quoted as [`shown`](crate::printer::shown) with the name of `asked` it most
/// likely misspells, then how many more there are (worded by
/// [`printer::unknown_listed`]). Its length is bounded whatever was sent,
/// and so is the work: [`closest_name`] is bounded per name.
pub(crate) fn list_unknown(unknown: &[&str], asked: &[&str]) -> String {
    let named: Vec<(&str, Option<&str>)> = unknown
        .iter()
        .take(UNKNOWN_SHOWN)
        .map(|&k| (k, closest_name(k, asked)))
        .collect();
    printer::unknown_listed(&named, unknown.len().saturating_sub(UNKNOWN_SHOWN))
}

/// The name in `names` that `key` most likely misspells: the nearest by
/// edit distance (letter case and `_` ignored, a swap of two neighbouring
/// letters counting as one edit), if near enough for a slip of the keyboard:
/// one edit in a name of up to 5 letters, two up to 10, three beyond. Ties go
/// to the name nearer as written, then to the name listed first.
///
/// The cost is bounded per name whatever `key` is: a key longer than twice
/// the longest name (plus [`MAX_SLIP`]) is no slip and is not even read to
/// its end; a name whose length differs from the key's by more than the
/// edits allowed is not compared; and the distance is computed in a band of
/// the allowed edits around the diagonal, stopping as soon as every cell of a
/// row is over the limit (`within`).
pub(crate) fn closest_name<'n>(key: &str, names: &[&'n str]) -> Option<&'n str> {
    let fold = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|&c| c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let longest = names.iter().map(|n| n.chars().count()).max()?;
    let cap = 2 * longest + MAX_SLIP;
    if key.chars().nth(cap).is_some() {
        return None;
    }
    let k = fold(key);
    let limit = match k.len() {
        0..=5 => 1,
        6..=10 => 2,
        _ => MAX_SLIP,
    };
    let raw: Vec<char> = key.chars().collect();
    // Nearest when folded; among those, nearest as written (so that
    // `expectedReplacement` suggests `expectedReplacements`, not the
    // snake_case spelling).
    let mut best: Option<((usize, usize), &'n str)> = None;
    for &name in names {
        let Some(d) = within(&k, &fold(name), limit) else {
            continue;
        };
        let d = (d, edit_distance(&raw, &name.chars().collect::<Vec<_>>()));
        if best.is_none_or(|(b, _)| d < b) {
            best = Some((d, name));
        }
    }
    best.map(|(_, name)| name)
}

#[cfg(test)]
thread_local! {
    /// Distance cells computed on this thread (unit tests bound the work).
    static CELLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` distance cells (unit tests only).
#[inline]
fn count_cells(_n: usize) {
    #[cfg(test)]
    CELLS.with(|c| c.set(c.get() + _n as u64));
}

/// The optimal string alignment distance of `a` and `b` if it is at most
/// `limit`: only the cells within `limit` of the diagonal are computed (a
/// path through any other has more edits), and the rows stop as soon as one
/// has no cell within the limit. At most `(a.len() + 1) × (2 × limit + 1)`
/// cells, and none when the lengths alone differ by more than `limit`.
pub(crate) fn within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    const FAR: usize = usize::MAX / 2;
    let w = b.len() + 1;
    // Three rows, rotated before each new one: the one before the previous
    // (for swaps), the previous, and this one (row 0 to begin with).
    let mut rows = [vec![FAR; w], vec![FAR; w], vec![FAR; w]];
    for (j, cell) in rows[2].iter_mut().enumerate().take(limit + 1) {
        *cell = j;
    }
    count_cells(limit.min(b.len()) + 1);
    for i in 1..=a.len() {
        let (lo, hi) = (i.saturating_sub(limit), (i + limit).min(b.len()));
        rows.rotate_left(1);
        let [pp, p, cur] = &mut rows;
        cur.fill(FAR);
        if lo == 0 {
            cur[0] = i;
        }
        let mut best = cur[0];
        for j in lo.max(1)..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (p[j] + 1).min(cur[j - 1] + 1).min(p[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(pp[j - 2] + 1);
            }
            cur[j] = v;
            best = best.min(v);
        }
        count_cells(hi + 1 - lo.max(1));
        if best > limit {
            return None;
        }
    }
    let d = rows[2][b.len()];
    (d <= limit).then_some(d)
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and swaps of two neighbouring characters, each one edit. For short names
/// only (callers bound the lengths): the whole table is computed.
pub(crate) fn edit_distance(a: &[char], b: &[char]) -> usize {
    let w = b.len() + 1;
    count_cells((a.len() + 1) * w);
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (i, row) in d.chunks_mut(w).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// A value's kind, for "must be a string, got a number".
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as sent, cut at 40 characters.
pub(crate) fn short(v: &Value) -> String {
    printer::sent_value(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn cells() -> u64 {
        CELLS.with(|c| c.replace(0))
    }

    /// A count past 2^53 (`1e20` from a schema that sets no maximum) is
    /// "past anything", not "not a whole number" (it was refused so, and
    /// 2^53 itself was echoed as `9007199254740992.0`).
    #[test]
    fn a_huge_whole_number_is_taken_as_the_most() {
        let whole = |v: serde_json::Value| serde_json::from_value::<Whole>(v).map(|Whole(n)| n);
        assert_eq!(whole(json!(1e20)).unwrap(), MOST);
        assert_eq!(whole(json!(9_007_199_254_740_992u64)).unwrap(), MOST);
        assert_eq!(whole(json!(u64::MAX)).unwrap(), MOST);
        assert_eq!(whole(json!(3.0)).unwrap(), 3);
        for bad in [json!(-1), json!(2.5), json!(-1e20), json!("3")] {
            assert!(whole(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_banded_distance_is_the_distance_within_its_limit() {
        // Every pair of strings of up to 5 letters over a 3-letter alphabet.
        let mut words = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|w| ['a', 'b', 'c'].map(|c| format!("{w}{c}")))
                .collect();
            words.extend(last.iter().cloned());
        }
        for a in words.iter().step_by(7) {
            for b in &words {
                let d = edit_distance(&chars(a), &chars(b));
                for limit in 0..=3 {
                    let want = (d <= limit).then_some(d);
                    assert_eq!(within(&chars(a), &chars(b), limit), want, "{a} {b} {limit}");
                }
            }
        }
    }

    #[test]
    fn a_suggestion_costs_a_bounded_number_of_cells_whatever_the_key() {
        let names = [
            "file_path",
            "filePath",
            "search",
            "replace",
            "expected_replacements",
            "expectedReplacements",
        ];
        cells();
        let huge = "q".repeat(4_000_000);
        assert_eq!(closest_name(&huge, &names), None);
        assert_eq!(
            cells(),
            0,
            "a key far longer than every name is not compared"
        );
        let near_huge = format!("search{}", "_".repeat(4_000_000));
        assert_eq!(closest_name(&near_huge, &names), None);
        assert_eq!(cells(), 0);
        // The longest key still compared: at most a band of 7 cells per
        // row of each name of about its length, plus the tie-break of the
        // names within reach.
        let longest = 2 * 21 + MAX_SLIP;
        for key in ["serach", "expectedReplacement", &"x".repeat(longest)] {
            let _ = closest_name(key, &names);
            let n = key.chars().count() as u64;
            let bound = names.len() as u64 * ((n + 1) * 7 + (n + 1) * 22);
            let c = cells();
            assert!(c <= bound, "{key}: {c} cells > {bound}");
        }
        assert_eq!(closest_name("serach", &names), Some("search"));
        assert_eq!(
            closest_name("expectedReplacement", &names),
            Some("expectedReplacements")
        );
    }

    request_shape! {
        struct Two {
            _a: Option<serde::de::IgnoredAny> = "file_path" | "filePath",
            _b: Option<serde::de::IgnoredAny> = "search",
        }
    }

    #[test]
    fn a_hundred_and_twenty_thousand_unknown_fields_cost_a_few_suggestions() {
        let mut obj = serde_json::Map::new();
        for i in 0..120_000 {
            obj.insert(format!("serach{i}"), json!(1));
        }
        obj.insert("serach".into(), json!(1));
        let v = Value::Object(obj);
        let mut f = Fields::new(&v, "input").unwrap();
        let _: Two = f.take().unwrap();
        cells();
        let e = f.finish().unwrap_err();
        let c = cells();
        assert!(
            c <= UNKNOWN_SHOWN as u64 * 3 * 15 * 30,
            "{c} cells for the suggestions"
        );
        assert!(e.message.len() < 600, "{}", e.message);
        assert!(e
            .message
            .starts_with("input: unknown fields `serach` (did you mean `search`?), `serach0`"));
        assert!(e.message.ends_with(" and 119993 more"), "{}", e.message);
    }
}

//! A map from non-overlapping address ranges to values, with range updates that split entries
//! at the update's edges, fill gaps with the default value, and merge neighbours that end up
//! equal: the run-length compression of the sync-validation design, so memory grows with the
//! number of distinct ranges, not with bytes.

use std::collections::BTreeMap;
use std::ops::Range;

/// Non-overlapping ranges, each with a value. Absent ranges hold `V::default()`.
#[derive(Clone, Debug, Default)]
pub struct RangeMap<V> {
    /// start -> (end, value).
    map: BTreeMap<u64, (u64, V)>,
}

impl<V: Clone + Default + PartialEq> RangeMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        RangeMap { map: BTreeMap::new() }
    }

    /// Number of stored ranges.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no range is stored.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Splits the entry containing `at` (if any) so that an entry starts at `at`.
    fn split_at(&mut self, at: u64) {
        let Some((&start, &(end, _))) = self.map.range(..at).next_back() else { return };
        if start < at && at < end {
            let (_, v) = self.map.get(&start).cloned().expect("entry");
            self.map.insert(start, (at, v.clone()));
            self.map.insert(at, (end, v));
        }
    }

    /// The stored entries overlapping `r`, clipped to it, in address order (gaps are not
    /// visited).
    pub fn overlapping(&self, r: Range<u64>) -> impl Iterator<Item = (Range<u64>, &V)> {
        let first = self.map.range(..r.start).next_back().filter(|(_, (end, _))| *end > r.start).map(|(s, _)| *s).unwrap_or(r.start);
        self.map.range(first..r.end).filter(move |(_, (end, _))| *end > r.start).map(move |(&s, (e, v))| (s.max(r.start)..(*e).min(r.end), v))
    }

    /// Applies `f` to the value of every address in `r`: stored entries are split at `r`'s
    /// edges, gaps are filled with the default value first; entries left equal to the default
    /// are removed and equal neighbours merged.
    pub fn update(&mut self, r: Range<u64>, mut f: impl FnMut(&mut V)) {
        if r.start >= r.end {
            return;
        }
        self.split_at(r.start);
        self.split_at(r.end);
        // Fill gaps inside r.
        let mut pos = r.start;
        let starts: Vec<(u64, u64)> = self.map.range(r.start..r.end).map(|(&s, (e, _))| (s, *e)).collect();
        let mut fills = Vec::new();
        for (s, e) in &starts {
            if pos < *s {
                fills.push((pos, *s));
            }
            pos = *e;
        }
        if pos < r.end {
            fills.push((pos, r.end));
        }
        for (s, e) in fills {
            self.map.insert(s, (e, V::default()));
        }
        let keys: Vec<u64> = self.map.range(r.start..r.end).map(|(&s, _)| s).collect();
        for k in &keys {
            if let Some((_, v)) = self.map.get_mut(k) {
                f(v);
            }
        }
        self.normalize(r);
    }

    /// Applies `f` to the stored values in `r` only (gaps stay default): entries are split at
    /// `r`'s edges, then normalized.
    pub fn update_existing(&mut self, r: Range<u64>, mut f: impl FnMut(&mut V)) {
        if r.start >= r.end || self.map.is_empty() {
            return;
        }
        self.split_at(r.start);
        self.split_at(r.end);
        for (_, (_, v)) in self.map.range_mut(r.start..r.end) {
            f(v);
        }
        self.normalize(r);
    }

    /// Applies `f` to every stored entry (gaps stay default), then normalizes everything.
    pub fn update_all(&mut self, mut f: impl FnMut(&mut V)) {
        for (_, v) in self.map.values_mut() {
            f(v);
        }
        if self.map.len() <= 1 {
            // Nothing to merge: only a default value to drop.
            if self.map.values().next().is_some_and(|(_, v)| *v == V::default()) {
                self.map.clear();
            }
            return;
        }
        self.normalize(0..u64::MAX);
    }

    /// Removes default entries in or touching `r` and merges equal neighbours there.
    fn normalize(&mut self, r: Range<u64>) {
        let lo = self.map.range(..r.start).next_back().map(|(s, _)| *s).unwrap_or(r.start);
        let keys: Vec<u64> = self.map.range(lo..=r.end.min(u64::MAX - 1)).map(|(&s, _)| s).collect();
        let default = V::default();
        let mut prev: Option<u64> = None;
        for k in keys {
            let Some((end, v)) = self.map.get(&k).cloned() else { continue };
            if v == default {
                self.map.remove(&k);
                prev = None;
                continue;
            }
            if let Some(p) = prev
                && let Some((pend, pv)) = self.map.get(&p).cloned()
                && pend == k
                && pv == v
            {
                self.map.remove(&k);
                self.map.insert(p, (end, pv));
                continue;
            }
            prev = Some(k);
        }
    }

    /// Every stored entry, in address order.
    pub fn iter(&self) -> impl Iterator<Item = (Range<u64>, &V)> {
        self.map.iter().map(|(&s, (e, v))| (s..*e, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_split_fill_and_merge() {
        let mut m: RangeMap<u32> = RangeMap::new();
        m.update(0..100, |v| *v = 1);
        m.update(40..60, |v| *v = 2);
        assert_eq!(m.iter().map(|(r, v)| (r, *v)).collect::<Vec<_>>(), vec![(0..40, 1), (40..60, 2), (60..100, 1)]);
        m.update(40..60, |v| *v = 1);
        assert_eq!(m.iter().map(|(r, v)| (r, *v)).collect::<Vec<_>>(), vec![(0..100, 1)], "equal neighbours merge");
        m.update(150..200, |v| *v += 3);
        assert_eq!(m.len(), 2);
        m.update(90..160, |v| *v += 1);
        assert_eq!(m.iter().map(|(r, v)| (r, *v)).collect::<Vec<_>>(), vec![(0..90, 1), (90..100, 2), (100..150, 1), (150..160, 4), (160..200, 3)]);
        assert_eq!(m.overlapping(95..155).map(|(r, v)| (r, *v)).collect::<Vec<_>>(), vec![(95..100, 2), (100..150, 1), (150..155, 4)]);
        m.update_all(|v| *v = 0);
        assert!(m.is_empty(), "default values are not stored");
    }
}

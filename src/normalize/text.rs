//! [`NormText`]: normalized text that remembers where each byte came from.

/// Text after normalization, with a map back into the original.
///
/// Every normalizer rewrites the text and carries the alignment along, so a
/// span found in the normalized text (a shared passage, a snippet) can be shown
/// in the user's own text. The map stores, for each byte of the normalized
/// text, the byte offset of the original character it was produced from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormText {
    text: String,
    /// `None` when nobody will ask for spans: the batch path skips the bookkeeping.
    origin: Option<Vec<u32>>,
}

impl NormText {
    /// Starts from the original text: every byte maps to the start of its own character.
    pub fn new(original: &str) -> Self {
        let mut origin = Vec::with_capacity(original.len());
        for (start, c) in original.char_indices() {
            origin.extend(std::iter::repeat_n(start as u32, c.len_utf8()));
        }
        NormText { text: original.to_owned(), origin: Some(origin) }
    }

    /// Starts from the original text without keeping alignment
    /// ([`NormText::original_span`] then maps everything to the start).
    pub fn untracked(original: &str) -> Self {
        NormText { text: original.to_owned(), origin: None }
    }

    /// The normalized text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Gives up the alignment and keeps the text.
    pub fn into_string(self) -> String {
        self.text
    }

    /// The byte range of `original` (the text this was made from) that
    /// produced the normalized byte range `start..end`: from the origin of the
    /// first byte to the end of the original character (with its combining
    /// marks) behind the last byte.
    pub fn original_span(&self, original: &str, start: usize, end: usize) -> std::ops::Range<usize> {
        let origin = self.origin.as_deref().unwrap_or_default();
        let at = |i: usize| origin.get(i).map_or(original.len(), |&o| o as usize);
        let from = at(start);
        if start >= end {
            return from..from;
        }
        let last = at(end - 1);
        let mut chars = original[last..].char_indices();
        chars.next();
        let to = chars
            .find(|&(_, c)| !unicode_normalization::char::is_combining_mark(c))
            .map_or(original.len(), |(i, _)| last + i);
        from..to
    }

    /// Whether any byte of the text satisfies `f`. It looks at every byte,
    /// without stopping early: that loop vectorises, and the rare bytes it is
    /// used to find are mostly absent, so an early exit would only cost.
    pub fn any_byte(&self, f: impl Fn(u8) -> bool) -> bool {
        self.text.bytes().fold(false, |found, b| found | f(b))
    }

    /// Rewrites ASCII text byte for byte, in place (`f` must map ASCII to
    /// ASCII; the alignment is unchanged). Returns `false`, doing nothing,
    /// when the text is not all ASCII.
    pub fn map_ascii_in_place(&mut self, f: impl Fn(u8) -> u8) -> bool {
        if !self.text.is_ascii() {
            return false;
        }
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        bytes.iter_mut().for_each(|b| *b = f(*b));
        self.text = String::from_utf8(bytes).expect("ASCII maps to ASCII");
        true
    }

    /// Rewrites ASCII text one byte at a time: `f` sees each byte and appends
    /// zero or more ASCII bytes, all aligned to that byte's origin. Returns
    /// `false`, doing nothing, when the text is not all ASCII
    /// ([`NormText::map_chars`] then).
    pub fn map_ascii(&mut self, mut f: impl FnMut(u8, &mut Vec<u8>)) -> bool {
        if !self.text.is_ascii() {
            return false;
        }
        let mut out = Vec::with_capacity(self.text.len() + 1);
        match &self.origin {
            None => self.text.bytes().for_each(|b| f(b, &mut out)),
            Some(source) => {
                let mut origin = Vec::with_capacity(source.len());
                for (b, &o) in self.text.bytes().zip(source) {
                    f(b, &mut out);
                    origin.resize(out.len(), o);
                }
                self.origin = Some(origin);
            }
        }
        self.text = String::from_utf8(out).expect("ASCII maps to ASCII");
        true
    }

    /// Rewrites the text one character at a time: `f` sees each character and
    /// emits zero or more replacements, all aligned to that character's origin.
    pub fn map_chars(&mut self, mut f: impl FnMut(char, &mut Emit<'_>)) {
        self.rewrite(|text, emit| {
            for (i, c) in text.char_indices() {
                emit.origin_index = i;
                f(c, emit);
            }
        });
    }

    /// Rewrites the text one combining sequence (a starter and the marks that
    /// follow it) at a time, for transforms such as NFKC that look at a whole
    /// sequence. Everything emitted aligns to the sequence's first character.
    pub fn map_sequences(&mut self, mut f: impl FnMut(&str, &mut Emit<'_>)) {
        self.rewrite(|text, emit| {
            let is_mark = |c: char| unicode_normalization::char::canonical_combining_class(c) != 0;
            let mut start = 0;
            let mut chars = text.char_indices().peekable();
            while chars.next().is_some() {
                while chars.next_if(|&(_, c)| is_mark(c)).is_some() {}
                let end = chars.peek().map_or(text.len(), |&(i, _)| i);
                emit.origin_index = start;
                f(&text[start..end], emit);
                start = end;
            }
        });
    }

    fn rewrite(&mut self, body: impl FnOnce(&str, &mut Emit<'_>)) {
        let mut out = Emit {
            text: String::with_capacity(self.text.len()),
            origin: self.origin.as_ref().map(|o| Vec::with_capacity(o.len())),
            source_origin: self.origin.as_deref().unwrap_or_default(),
            origin_index: 0,
        };
        body(&self.text, &mut out);
        let Emit { text, origin, .. } = out;
        self.text = text;
        self.origin = origin;
    }
}

/// Where a normalizer writes its output; see [`NormText::map_chars`].
pub struct Emit<'a> {
    text: String,
    origin: Option<Vec<u32>>,
    source_origin: &'a [u32],
    origin_index: usize,
}

impl Emit<'_> {
    /// Appends one character, aligned to the input character being rewritten.
    pub fn push(&mut self, c: char) {
        if let Some(origin) = &mut self.origin {
            let o = self.source_origin.get(self.origin_index).copied().unwrap_or(0);
            origin.extend(std::iter::repeat_n(o, c.len_utf8()));
        }
        self.text.push(c);
    }

    /// Appends a string, aligned to the input character being rewritten.
    pub fn push_str(&mut self, s: &str) {
        s.chars().for_each(|c| self.push(c));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_map_back_through_deletions_and_expansions() {
        let original = "a\u{200b}ﬁb";
        let mut t = NormText::new(original);
        // Drop the zero-width space, expand the ligature.
        t.map_chars(|c, e| match c {
            '\u{200b}' => {}
            'ﬁ' => e.push_str("fi"),
            c => e.push(c),
        });
        assert_eq!(t.as_str(), "afib");
        // "fi" came from the 3-byte ligature at original offset 4.
        assert_eq!(t.original_span(original, 1, 3), 4..7);
        assert_eq!(t.original_span(original, 3, 4), 7..8);
        assert_eq!(t.original_span(original, 0, 4), 0..8);
    }

    #[test]
    fn sequences_keep_marks_with_their_base() {
        let original = "e\u{301}x";
        let mut t = NormText::new(original);
        let mut seen = Vec::new();
        t.map_sequences(|s, e| {
            seen.push(s.to_owned());
            e.push_str(s)
        });
        assert_eq!(seen, vec!["e\u{301}".to_owned(), "x".to_owned()]);
        assert_eq!(t.original_span(original, 3, 4), 3..4);
        assert_eq!(t.original_span(original, 0, 3), 0..3);
    }
}

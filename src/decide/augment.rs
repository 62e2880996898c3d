//! Self-supervised training pairs for the learned boundary, made from
//! unlabelled text.
//!
//! A positive is a text and a corrupted copy of it, corrupted the ways real
//! duplicates differ: typos, homoglyphs, odd whitespace, case and
//! punctuation, template wrapping (navigation and footer text mined from
//! real pages), excerpts (containment), sentence reordering, word edits of
//! a reposted copy, and paraphrase-like rewording (synonym swaps from a
//! small list, including archaic and modern English forms). A negative is two
//! different texts that look alike: adjacent entries of a corpus (the next
//! verse, the next package of the same family, the next dictionary entry),
//! the lexically nearest of 256 texts drawn from the corpus, two texts wrapped in the
//! same template, two texts holding the same pasted quote, an excerpt of a
//! neighbour. Negatives that are probably true duplicates in the corpus
//! (the caller drops pairs whose signals say so) would teach the wrong thing.
//!
//! Everything is seeded: the same corpora give the same pairs.

/// A small deterministic random source.
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`: the same seed, the same sequence.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits: the state steps by the golden-ratio constant
    /// and goes through the MurmurHash3 finaliser.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = crate::util::hash::mix64(self.0.wrapping_add(0x9e37_79b9_7f4a_7c15));
        self.0
    }

    /// A number in `0..n` (0 when `n` is 0). The modulo bias is negligible
    /// for the small `n` drawn here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// One of `items`, each as likely. Panics when `items` is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Text wrapped around a document: a page's navigation before, its footer after.
#[derive(Clone, Debug)]
pub struct Template {
    /// What precedes the article: navigation, headers.
    pub before: String,
    /// What follows it: footers, links.
    pub after: String,
}

impl Template {
    /// The template of a page whose article text is known: what comes before
    /// the article's first line and after its last.
    pub fn mine(page: &str, article: &str) -> Option<Template> {
        let first = article.lines().find(|l| !l.trim().is_empty())?;
        let last = article.lines().rev().find(|l| !l.trim().is_empty())?;
        let start = page.find(first.trim())?;
        let end = page.rfind(last.trim())? + last.trim().len();
        (start < end).then(|| Template { before: page[..start].to_owned(), after: page[end..].to_owned() })
    }

    /// At most `lines` lines of each side (real templates run to hundreds).
    pub fn trimmed(&self, lines: usize, rng: &mut Rng) -> Template {
        let mut take = |s: &str, from_end: bool| {
            let all: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
            let n = lines.min(all.len());
            let start = if from_end { all.len() - n } else { rng.below(all.len() - n + 1) };
            all[start..start + n].join("\n")
        };
        Template { before: take(&self.before, true), after: take(&self.after, false) }
    }

    /// `text` as the template's article, each part on its own lines.
    pub fn wrap(&self, text: &str) -> String {
        format!("{}\n{}\n{}", self.before, text, self.after)
    }
}

/// Ways a copy of a text is corrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corruption {
    /// A letter swapped, dropped, doubled or replaced in some words ([`typos`]).
    Typos,
    /// Latin letters replaced by Cyrillic look-alikes ([`homoglyphs`]).
    Homoglyphs,
    /// No-break and zero-width spaces, tabs, doubled spaces ([`whitespace`]).
    Whitespace,
    /// Upper case, or punctuation dropped and `!!` added ([`case_punctuation`]).
    CasePunctuation,
    /// Wrapped in a page's navigation and footer (long texts).
    Template,
    /// A contiguous run of the sentences: contained in the original
    /// ([`excerpt`]; long texts).
    Excerpt,
    /// The sentences shuffled ([`reorder`]; long texts).
    Reorder,
    /// A repost: a few words changed, maybe a `Re:` or a posting line
    /// ([`word_edits`]).
    WordEdits,
    /// Synonyms swapped, filler words dropped or added ([`paraphrase`]).
    Paraphrase,
    /// A paraphrase with typos on top (short texts).
    ParaphraseTypos,
}

/// Ways two different texts are made to look alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookalike {
    /// The next entry of the corpus: the next verse, the next package of
    /// the same family.
    Adjacent,
    /// The lexically nearest of 256 texts drawn from the corpus.
    Nearest,
    /// Two texts wrapped in the same template.
    SameTemplate,
    /// Two texts holding the same pasted quote (long texts).
    SharedQuote,
    /// A text and an excerpt of the next one (long texts).
    NeighbourExcerpt,
}

const HOMOGLYPHS: [(char, char); 9] =
    [('a', 'а'), ('e', 'е'), ('o', 'о'), ('p', 'р'), ('c', 'с'), ('x', 'х'), ('y', 'у'), ('i', 'і'), ('A', 'А')];

/// Word swaps of a paraphrase: everyday synonyms, and the archaic forms
/// older English texts use next to their modern ones.
const SYNONYMS: [(&str, &str); 48] = [
    ("thee", "you"),
    ("thou", "you"),
    ("ye", "you"),
    ("thy", "your"),
    ("thine", "yours"),
    ("unto", "to"),
    ("hath", "has"),
    ("doth", "does"),
    ("saith", "says"),
    ("shalt", "shall"),
    ("wilt", "will"),
    ("art", "are"),
    ("spake", "spoke"),
    ("behold", "look"),
    ("begat", "became the father of"),
    ("came to pass", "happened"),
    ("whom", "who"),
    ("wherefore", "therefore"),
    ("upon", "on"),
    ("among", "amongst"),
    ("said", "told"),
    ("big", "large"),
    ("small", "little"),
    ("begin", "start"),
    ("end", "finish"),
    ("quick", "fast"),
    ("show", "display"),
    ("use", "utilise"),
    ("help", "assist"),
    ("get", "obtain"),
    ("make", "create"),
    ("buy", "purchase"),
    ("many", "numerous"),
    ("people", "persons"),
    ("house", "home"),
    ("answer", "reply"),
    ("went", "left"),
    ("slew", "killed"),
    ("smote", "struck"),
    ("cities", "towns"),
    ("man", "person"),
    ("children", "descendants"),
    ("sons", "descendants"),
    ("coasts", "borders"),
    ("king", "ruler"),
    ("go", "leave"),
    ("great", "large"),
    ("also", "too"),
];

/// Words a paraphrase inserts or drops.
const FILLERS: [&str; 8] = ["and", "the", "then", "so", "now", "also", "very", "that"];

/// `rate` of the words get a typo (swap, drop, double or replace one letter).
pub fn typos(text: &str, rate: f64, rng: &mut Rng) -> String {
    map_words(
        text,
        |w, rng| {
            let chars: Vec<char> = w.chars().collect();
            if chars.len() < 3 || !rng.chance(rate) {
                return w.to_owned();
            }
            let mut c = chars.clone();
            let i = 1 + rng.below(c.len() - 2);
            match rng.below(4) {
                0 => c.swap(i, i + 1),
                1 => {
                    c.remove(i);
                }
                2 => c.insert(i, c[i]),
                _ => c[i] = (b'a' + rng.below(26) as u8) as char,
            }
            c.into_iter().collect()
        },
        rng,
    )
}

/// Replaces some Latin letters with Cyrillic look-alikes.
pub fn homoglyphs(text: &str, rate: f64, rng: &mut Rng) -> String {
    text.chars()
        .map(|c| match HOMOGLYPHS.iter().find(|(l, _)| *l == c) {
            Some(&(_, h)) if rng.chance(rate) => h,
            _ => c,
        })
        .collect()
}

/// Odd whitespace: no-break and zero-width spaces, tabs, doubled spaces.
pub fn whitespace(text: &str, rng: &mut Rng) -> String {
    text.chars()
        .map(|c| match c {
            ' ' => [" ", "\u{a0}", "\t", "  ", " \u{200b}"][rng.below(5)].to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// Upper case, or punctuation dropped and added.
pub fn case_punctuation(text: &str, rng: &mut Rng) -> String {
    if rng.chance(0.5) {
        text.to_uppercase()
    } else {
        let bare: String = text.chars().filter(|c| !c.is_ascii_punctuation()).collect();
        format!("{bare}!!")
    }
}

/// Sentences (or lines, for line-structured text).
fn sentences(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() >= 3 {
        return lines;
    }
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | ';') && text[i + 1..].starts_with(' ') {
            out.push(text[start..=i].trim());
            start = i + 1;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// A contiguous run of 20-50% of the sentences, when there are at least five.
pub fn excerpt(text: &str, rng: &mut Rng) -> Option<String> {
    let s = sentences(text);
    if s.len() < 5 {
        return None;
    }
    let n = (s.len() * (20 + rng.below(31)) / 100).max(2);
    let start = rng.below(s.len() - n + 1);
    Some(s[start..start + n].join(" "))
}

/// The sentences in another order, when there are at least three.
pub fn reorder(text: &str, rng: &mut Rng) -> Option<String> {
    let mut s = sentences(text);
    if s.len() < 3 {
        return None;
    }
    for i in (1..s.len()).rev() {
        s.swap(i, rng.below(i + 1));
    }
    Some(s.join(" "))
}

/// A reposted copy: 1-3 words changed, dropped or added, maybe a "Re:"
/// prefix or a "Posted on ... by admin" tail.
pub fn word_edits(text: &str, rng: &mut Rng) -> String {
    let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    for _ in 0..1 + rng.below(3) {
        if words.len() < 2 {
            break;
        }
        let i = rng.below(words.len());
        match rng.below(3) {
            0 => {
                words.remove(i);
            }
            1 => words[i] = rng.pick(&FILLERS).to_string(),
            _ => words.insert(i, rng.pick(&FILLERS).to_string()),
        }
    }
    let mut out = words.join(" ");
    match rng.below(4) {
        0 => out = format!("Re: {out}"),
        1 => out = format!("{out}\nPosted on 2024-0{}-1{} by admin", 1 + rng.below(9), rng.below(10)),
        _ => {}
    }
    out
}

/// Paraphrase-like rewording: `rate` of the swappable words swapped (either
/// way), some filler words dropped or added, a leading "And" dropped.
pub fn paraphrase(text: &str, rate: f64, rng: &mut Rng) -> String {
    let mut out = text.strip_prefix("And ").map(capitalise).unwrap_or_else(|| text.to_owned());
    for (a, b) in SYNONYMS {
        let (from, to) = if rng.chance(0.5) { (a, b) } else { (b, a) };
        out = replace_words(&out, from, to, rate, rng);
    }
    map_words(
        &out,
        |w, rng| {
            let lower = w.to_lowercase();
            if FILLERS.contains(&lower.as_str()) && rng.chance(rate / 2.0) {
                String::new()
            } else if rng.chance(rate / 8.0) {
                format!("{} {w}", rng.pick(&FILLERS))
            } else {
                w.to_owned()
            }
        },
        rng,
    )
}

fn capitalise(t: &str) -> String {
    let mut c = t.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// Whole-word, case-insensitive replacement of `from` (one or more words) with
/// `to`, each occurrence with probability `rate`.
fn replace_words(text: &str, from: &str, to: &str, rate: f64, rng: &mut Rng) -> String {
    let lower = text.to_lowercase();
    if lower.len() != text.len() || !lower.contains(from) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in lower.match_indices(from) {
        let before = lower[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = lower[i + from.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if i >= last && before && after && rng.chance(rate) {
            out.push_str(&text[last..i]);
            out.push_str(to);
            last = i + from.len();
        }
    }
    out.push_str(&text[last..]);
    out
}

/// Applies `f` to each whitespace-separated word, keeping the separators.
fn map_words(text: &str, mut f: impl FnMut(&str, &mut Rng) -> String, rng: &mut Rng) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !word.is_empty() {
                out.push_str(&f(&word, rng));
                word.clear();
            }
            out.push(c);
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push_str(&f(&word, rng));
    }
    out
}

/// A corrupted copy of `text`, and how it was made. `short` texts get the
/// corruptions of short snippets, long ones those of pages.
pub fn corrupt(text: &str, templates: &[Template], strength: f64, rng: &mut Rng) -> (String, Corruption) {
    use Corruption::*;
    let short = text.chars().count() <= 300;
    loop {
        let kind = if short {
            *rng.pick(&[
                Typos,
                Homoglyphs,
                Whitespace,
                CasePunctuation,
                WordEdits,
                Paraphrase,
                Paraphrase,
                ParaphraseTypos,
            ])
        } else {
            *rng.pick(&[Typos, Template, Template, Excerpt, Excerpt, Reorder, WordEdits, Paraphrase])
        };
        let out = match kind {
            Typos => Some(typos(text, 0.05 + 0.1 * rng.below(3) as f64, rng)),
            Homoglyphs => Some(homoglyphs(text, 0.3, rng)),
            Whitespace => Some(whitespace(text, rng)),
            CasePunctuation => Some(case_punctuation(text, rng)),
            Template if !templates.is_empty() => Some(rng.pick(templates).trimmed(5 + rng.below(30), rng).wrap(text)),
            Excerpt => excerpt(text, rng),
            Reorder => reorder(text, rng),
            WordEdits => Some(word_edits(text, rng)),
            Paraphrase => Some(paraphrase(text, strength, rng)),
            ParaphraseTypos => Some(typos(&paraphrase(text, strength, rng), 0.05, rng)),
            Template => None,
        };
        if let Some(out) = out.filter(|o| o != text && !o.trim().is_empty()) {
            return (out, kind);
        }
    }
}

/// Words of a text, lower case, as a sorted set (for nearest neighbours).
fn word_set(text: &str) -> Vec<String> {
    let mut w: Vec<String> = text.split_whitespace().map(|w| w.to_lowercase()).collect();
    w.sort_unstable();
    w.dedup();
    w
}

fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (common, i, j) = (common + 1, i + 1, j + 1),
        }
    }
    common as f64 / (a.len() + b.len() - common).max(1) as f64
}

/// Two different texts of `corpus` (index `i` and another) made to look alike.
pub fn lookalike(
    corpus: &[String],
    i: usize,
    templates: &[Template],
    quotes: &[String],
    rng: &mut Rng,
) -> (String, String, Lookalike) {
    use Lookalike::*;
    let text = &corpus[i];
    let next = &corpus[(i + 1) % corpus.len()];
    let long = text.chars().count() > 300;
    let kind = if long {
        *rng.pick(&[Adjacent, Nearest, SameTemplate, SharedQuote, NeighbourExcerpt])
    } else {
        *rng.pick(&[Adjacent, Adjacent, Nearest, SameTemplate])
    };
    match kind {
        Adjacent => (text.clone(), next.clone(), kind),
        Nearest => {
            let own = word_set(text);
            let best = (0..256)
                .map(|_| rng.below(corpus.len()))
                .filter(|&j| j != i && corpus[j] != *text)
                .max_by(|&a, &b| jaccard(&own, &word_set(&corpus[a])).total_cmp(&jaccard(&own, &word_set(&corpus[b]))))
                .unwrap_or((i + 1) % corpus.len());
            (text.clone(), corpus[best].clone(), kind)
        }
        SameTemplate if !templates.is_empty() => {
            let t = rng.pick(templates).trimmed(5 + rng.below(30), rng);
            (t.wrap(text), t.wrap(next), kind)
        }
        SharedQuote if !quotes.is_empty() => {
            let q = rng.pick(quotes);
            (format!("{text}\n{q}"), format!("{q}\n{next}"), kind)
        }
        NeighbourExcerpt => match excerpt(next, rng) {
            Some(e) => (text.clone(), e, kind),
            None => (text.clone(), next.clone(), Adjacent),
        },
        _ => (text.clone(), next.clone(), Adjacent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruptions_change_the_text_but_keep_most_of_it() {
        let mut rng = Rng::new(1);
        let text = "And the king said unto them, Go ye and search diligently for the young child.";
        for _ in 0..50 {
            let (out, kind) = corrupt(text, &[], 0.5, &mut rng);
            assert_ne!(out, text, "{kind:?}");
            let kept = jaccard(&word_set(text), &word_set(&out.to_lowercase()));
            assert!(kind == Corruption::Homoglyphs || kept > 0.2, "{kind:?} kept {kept}: {out}");
        }
    }

    #[test]
    fn templates_are_mined_around_the_article() {
        let page = "Home | News | Sport\nCookies help us.\nFirst line of the story.\nLast line.\nFooter (c) 2024";
        let t = Template::mine(page, "First line of the story.\nLast line.").unwrap();
        assert_eq!(t.before, "Home | News | Sport\nCookies help us.\n");
        assert_eq!(t.after, "\nFooter (c) 2024");
    }

    #[test]
    fn excerpts_are_contiguous_sentences() {
        let mut rng = Rng::new(2);
        let text = "One a. Two b. Three c. Four d. Five e. Six f. Seven g. Eight h.";
        let e = excerpt(text, &mut rng).unwrap();
        assert!(text.contains(&e), "{e}");
        assert!(excerpt("Too short. Really.", &mut rng).is_none());
    }
}

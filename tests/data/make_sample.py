#!/usr/bin/env python3
"""Build tests/data/sample.jsonl: a small de-duplication corpus with ground truth.

Python 3.11, standard library only, deterministic (fixed seed).

    python3 tests/data/make_sample.py

Each output line is a JSON object:
    id       unique string (file order is shuffled, ids carry no information)
    text     the document
    cluster  same value = duplicates of each other
    type     boilerplate | hot | short | contain | viral | singleton
    variant  how this document was derived from its base text
    snippet  (viral only) index of the shared quote

See tests/data/README.md for sources and licences.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import textwrap
from collections import Counter
from itertools import combinations
from pathlib import Path

DATA = Path("/work/shared/data")
HERE = Path(__file__).resolve().parent

# Fortune files whose content is suitable for a public test fixture.
FORTUNE_CATEGORIES = {
    "art", "computers", "education", "food", "humorists", "linux",
    "science", "wisdom", "work",
}

MAX_BASE_JACCARD = 0.3

# --------------------------------------------------------------------------
# Website templates. Written for this project (fictional sites), MIT licence.
# Each is (name, header, footer); header goes before the article, footer after,
# each on its own lines.
# --------------------------------------------------------------------------
TEMPLATES = [
    (
        "terminal-times",
        """Skip to main content
The Terminal Times | Software news for people who read man pages
Home | News | Reviews | Tutorials | Releases | Opinion | Podcasts | About
Search | Sign in | Subscribe
We use cookies to keep you signed in, remember your preferences and measure how our pages are used. You can accept all cookies or choose which ones to allow in Cookie Settings.
Accept all | Reject non-essential | Cookie Settings
Reviews > Open source > Utilities""",
        """Share this article: Email | Mastodon | Reddit | Copy link
Was this article helpful? Yes | No
Get the Terminal Times Weekly: the best new releases, tutorials and release notes, delivered every Friday morning.
Enter your email address | Subscribe
You can unsubscribe at any time.
About us | Contact | Advertise | Write for us | Careers | RSS feeds
Privacy policy | Terms of use | Cookie policy | Accessibility
(c) 2024 Terminal Times Media Ltd. All rights reserved.""",
    ),
    (
        "kestrel-directory",
        """Kestrel Software Directory
Browse categories: Audio & Video | Development | Education | Games | Graphics | Internet | Office | Science | System Tools
Top downloads | New this week | Editor's picks | Submit your app
Log in or create a free account to save favourites and get update alerts.
This site uses cookies and similar technologies to deliver content and analyse traffic. By continuing to browse you agree to our use of cookies. OK, got it | Learn more
Home > Software > Linux""",
        """Downloads are provided by the original authors. Kestrel does not modify files and is not responsible for third-party software.
Report broken link | Report abuse | Suggest a correction
Stay up to date! Join 40,000 readers and get our monthly roundup of the best free software.
Your email | Sign me up
Company: About Kestrel | Press | Partners | Contact support
Legal: Terms of service | Privacy notice | Copyright complaints
Copyright 2009-2024 Kestrel Digital Inc. All trademarks are property of their respective owners.""",
    ),
    (
        "pinecone-forum",
        """Pinecone Community Forums
Forums | Latest posts | Unanswered | Members | Rules | Help
Welcome, Guest. Please log in or register to join the discussion.
Cookie notice: we only use essential cookies and privacy-friendly analytics, nothing is shared with advertisers. Dismiss
Board index >> Software >> Show and tell
Topic: Package of the day
Reply with quote | Report post""",
        """Last edited by a moderator. Reason: fixed formatting.
Top of page | Back to Show and tell
Who is online: users browsing this forum: no registered users and 3 guests.
Never miss a thread: subscribe to the Pinecone digest and we will email you the most popular topics of the week.
Email address | Subscribe
Forum rules | Privacy | Contact the team | Delete cookies
Run by community volunteers. All posts are the property of their respective authors.
(c) 2024 Pinecone Community. All times are UTC.""",
    ),
    (
        "maple-and-byte",
        """Maple & Byte
A blog about tools, tinkering and tidy desktops
Home / About / Archive / Projects / Uses / Contact
Menu
Hey there! This website uses cookies to improve your experience. We'll assume you're ok with this, but you can opt out if you wish.
Accept | Read more
You are here: Home / Tools / Notes
Estimated reading time: 2 minutes""",
        """Filed under: Tools, Notes | Tagged: linux, free software, command line
Previous post | Next post
Leave a comment
Your email address will not be published. Required fields are marked *
Like what you read? Sign up for the newsletter and get new posts in your inbox every other Sunday. No spam, ever.
First name | Email | Join
Copyright 2024 Maple & Byte | Theme by Northwind Themes | Built with care | Log in""",
    ),
]

# Pairs of templates for the boilerplate clusters: every template used 5 times
# over 10 clusters.
TEMPLATE_PAIRS = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2), (0, 1), (2, 3), (0, 2), (1, 3)]

HOMOGLYPHS = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445",
              "A": "\u0410", "E": "\u0415", "O": "\u041e", "P": "\u0420", "C": "\u0421", "X": "\u0425"}

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]

WORD_RE = re.compile(r"\w+")


# --------------------------------------------------------------------------
# similarity helpers
# --------------------------------------------------------------------------
def shingles(text: str, n: int = 3) -> set[tuple[str, ...]]:
    w = WORD_RE.findall(text.lower())
    if len(w) < n:
        return {tuple(w)}
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def overlap(a: set, b: set) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


class BasePool:
    """All base texts chosen so far; a new one must be unrelated to all of them."""

    def __init__(self) -> None:
        self.sh: list[set] = []
        self.names: list[str] = []

    def ok(self, text: str) -> bool:
        s = shingles(text)
        # Jaccard is the documented criterion; the overlap (containment) check
        # additionally keeps out e.g. libfoo vs libfoo-dev whose long
        # description is the short one plus a paragraph.
        return all(jaccard(s, t) < MAX_BASE_JACCARD and overlap(s, t) < MAX_BASE_JACCARD for t in self.sh)

    def add(self, name: str, text: str) -> None:
        self.sh.append(shingles(text))
        self.names.append(name)

    def max_jaccard(self) -> float:
        return max((jaccard(a, b) for a, b in combinations(self.sh, 2)), default=0.0)


def load_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def collapse(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------
# perturbations
# --------------------------------------------------------------------------
def tokens(text: str) -> list[str]:
    """Words and whitespace runs, alternating; join() gives the text back."""
    return re.findall(r"\s+|\S+", text)


def word_positions(toks: list[str], skip: int = 0, minlen: int = 1) -> list[int]:
    return [i for i, t in enumerate(toks) if not t.isspace() and i >= skip
            and len(WORD_RE.sub("", t)) < len(t) and len(t) >= minlen]


def typo(rng: random.Random, text: str, count: int) -> str:
    chars = list(text)
    for _ in range(count):
        letters = [i for i, c in enumerate(chars) if c.isalpha() and c.isascii()]
        i = rng.choice(letters)
        op = rng.choice(["swap", "delete", "substitute", "double"])
        if op == "swap" and i + 1 < len(chars) and chars[i + 1].isalpha() and chars[i + 1] != chars[i]:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == "delete":
            del chars[i]
        elif op == "double":
            chars.insert(i, chars[i])
        else:
            alphabet = "abcdefghijklmnopqrstuvwxyz".replace(chars[i].lower(), "")
            c = rng.choice(alphabet)
            chars[i] = c.upper() if chars[i].isupper() else c
    return "".join(chars)


def homoglyph(rng: random.Random, text: str) -> str:
    idx = [i for i, c in enumerate(text) if c in HOMOGLYPHS]
    k = max(2, round(len(idx) * rng.uniform(0.3, 0.6)))
    pick = set(rng.sample(idx, min(k, len(idx))))
    return "".join(HOMOGLYPHS[c] if i in pick else c for i, c in enumerate(text))


def odd_whitespace(rng: random.Random, text: str) -> str:
    toks = tokens(text)
    out = []
    for t in toks:
        if t.isspace():
            r = rng.random()
            if r < 0.25:
                t = "\u00a0"
            elif r < 0.35:
                t = "\t"
            elif r < 0.45:
                t = "  "
        elif len(t) >= 5 and rng.random() < 0.2:
            j = rng.randrange(1, len(t) - 1)
            t = t[:j] + "\u200b" + t[j:]
        out.append(t)
    s = "".join(out)
    if s == text:  # make sure at least something changed
        s = s.replace(" ", "\u00a0", 1)
    return s


def case_punct(rng: random.Random, text: str) -> str:
    s = text.upper()
    s = s.replace(",", "").replace(";", "").replace(":", "")
    s = s.replace("'", "").replace('"', "")
    s = re.sub(r"[.?]+(\s|$)", lambda m: rng.choice(["!", "!!", "...", ""]) + m.group(1), s)
    if s and s[-1].isalnum():
        s += "!"
    return s


def whitespace_copy(rng: random.Random, text: str, mode: int) -> tuple[str, str]:
    if mode == 0:
        return " ".join(text.split()), "whitespace:one-line"
    if mode == 1:
        return text.replace("\n", "\r\n"), "whitespace:crlf"
    if mode == 2:
        return re.sub(r"([.!?]) ", r"\1  ", text) + "\n\n", "whitespace:spaces"
    # re-wrap each paragraph to a different width
    width = rng.choice([60, 66, 100])
    paras = text.split("\n\n")
    return "\n\n".join(textwrap.fill(" ".join(p.split()), width) for p in paras), f"whitespace:rewrap{width}"


SWAPS = {"a": "the", "the": "a", "and": "&", "is": "was", "for": "with", "can": "may",
         "of": "for", "to": "into", "it": "this", "with": "using", "which": "that"}
FILLERS = ["new", "simple", "small", "useful", "fast", "other", "good", "basic"]


def light_edit(rng: random.Random, text: str, kind: str) -> tuple[str, str]:
    if kind == "re":
        return "Re: " + text, "edit:re-prefix"
    if kind == "posted":
        date = f"{MONTHS[rng.randrange(12)]} {rng.randint(1, 28)}, {rng.randint(2015, 2024)}"
        return f"{text}\n\nPosted on {date} by admin", "edit:posted-tail"
    toks = tokens(text)
    first_nl = next((i for i, t in enumerate(toks) if "\n" in t), 0)
    pos = word_positions(toks, skip=first_nl + 1)
    n = rng.randint(1, 3)
    chosen = sorted(rng.sample(pos, n), reverse=True)
    for i in chosen:
        if kind == "delete":
            toks[i] = ""
            if i + 1 < len(toks) and toks[i + 1].isspace() and i - 1 >= 0 and toks[i - 1].isspace():
                toks[i + 1] = "" if "\n" not in toks[i + 1] else toks[i + 1]
                if toks[i + 1]:
                    toks[i - 1] = ""
        else:
            w = toks[i]
            core = w.strip(".,;:()!?\"'")
            lead = w[: w.find(core)] if core else ""
            tail = w[len(lead) + len(core):]
            rep = SWAPS.get(core.lower()) or rng.choice([f for f in FILLERS if f != core.lower()])
            toks[i] = lead + rep + tail
    return "".join(toks), f"edit:{kind}{n}"


# --------------------------------------------------------------------------
# selection
# --------------------------------------------------------------------------
def debian_ok(text: str, lo: int, hi: int) -> bool:
    if not (lo <= len(text) <= hi) or not text.isascii() or "\t" in text:
        return False
    low = text.lower()
    if any(w in low for w in ("transitional", "dummy package", "metapackage", "http")):
        return False
    lines = text.split("\n")
    return len(lines) >= 3 and len(WORD_RE.findall(text)) >= 25


def sentence_breaks(text: str) -> list[re.Match]:
    body_start = text.find("\n") + 1
    return [m for m in re.finditer(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])", text)
            if m.start() > body_start and m.end() < len(text) - 1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--debian", type=Path, default=DATA / "corpora/debian_descriptions.jsonl")
    ap.add_argument("--fortunes", type=Path, default=DATA / "corpora/fortunes.jsonl")
    ap.add_argument("--stress", type=Path, default=DATA / "stress/stress_dev.jsonl")
    ap.add_argument("--out", type=Path, default=HERE / "sample.jsonl")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--list-sources", action="store_true", help="print the source ids used, by type")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    pool = BasePool()
    sources: dict[str, list[str]] = {}
    docs: list[dict] = []

    def emit(text, cluster, typ, variant, **extra):
        docs.append({"text": text, "cluster": cluster, "type": typ, "variant": variant, **extra})

    # ---- template sanity ----
    for name, head, foot in TEMPLATES:
        nw = len((head + " " + foot).split())
        assert 120 <= nw <= 180, (name, nw)

    # ---- load sources (sorted by id so the result does not depend on file order) ----
    debian = sorted(load_jsonl(args.debian), key=lambda r: r["id"])
    seen_text: set[str] = set()
    deb = []
    for r in debian:
        if r["text"] not in seen_text:
            seen_text.add(r["text"])
            deb.append(r)
    rng.shuffle(deb)
    used_deb: set[str] = set()

    fortunes = sorted(load_jsonl(args.fortunes), key=lambda r: r["id"])
    fortunes = [r for r in fortunes if r["id"].split(":")[1] in FORTUNE_CATEGORIES]
    rng.shuffle(fortunes)
    used_fort: set[str] = set()

    stress = load_jsonl(args.stress)
    parents = sorted((r for r in stress if r["type"] == "contain" and r["variant"] == "parent"),
                     key=lambda r: r["id"])
    rng.shuffle(parents)

    def take_debian(role: str, n: int, lo: int, hi: int, pred=lambda t: True) -> list[dict]:
        out = []
        for r in deb:
            if len(out) == n:
                break
            if r["id"] in used_deb or not debian_ok(r["text"], lo, hi) or not pred(r["text"]):
                continue
            if not pool.ok(r["text"]):
                continue
            used_deb.add(r["id"])
            pool.add(r["id"], r["text"])
            out.append(r)
        assert len(out) == n, (role, len(out))
        sources.setdefault(role, []).extend(r["id"] for r in out)
        return out

    def take_fortunes(role: str, n: int, lo: int, hi: int, pred=lambda t: True) -> list[str]:
        out = []
        for r in fortunes:
            if len(out) == n:
                break
            t = collapse(r["text"])
            if r["id"] in used_fort or not t.isascii() or not (lo <= len(t.split()) <= hi) or not pred(t):
                continue
            if sum(c in HOMOGLYPHS for c in t) < 6 or not pool.ok(t):
                continue
            used_fort.add(r["id"])
            pool.add(r["id"], t)
            sources.setdefault(role, []).append(r["id"])
            out.append(t)
        assert len(out) == n, (role, len(out))
        return out

    # ---- contain: 6 Bible chapters + contiguous excerpt ----
    n_contain = 0
    places = ["start", "middle", "end"]
    for r in parents:
        if n_contain == 6:
            break
        size = len(r["text"].encode("utf-8"))
        verses = r["text"].split("\n")
        if not (1800 <= size <= 4500) or len(verses) < 10 or not pool.ok(r["text"]):
            continue
        pool.add("stress:" + r["id"], r["text"])
        sources.setdefault("contain", []).append(f"stress_dev {r['id']} (cluster {r['cluster']})")
        n = len(verses)
        k = rng.randint(-(-n * 20 // 100), n * 50 // 100)
        place = places[n_contain % 3]
        start = 0 if place == "start" else n - k if place == "end" else rng.randint(1, n - k - 1)
        cl = f"ct{n_contain}"
        emit(r["text"], cl, "contain", "parent")
        emit("\n".join(verses[start:start + k]), cl, "contain", f"child:{k}/{n}")
        n_contain += 1
    assert n_contain == 6

    # ---- short: 12 fortune quotes + perturbed copy ----
    kinds = ["typo", "homoglyph", "whitespace", "typo+whitespace", "case+punct"]
    for i, q in enumerate(take_fortunes("short", 12, 8, 30)):
        kind = kinds[i % len(kinds)]
        if kind == "typo":
            p = typo(rng, q, rng.randint(1, 2))
        elif kind == "homoglyph":
            p = homoglyph(rng, q)
        elif kind == "whitespace":
            p = odd_whitespace(rng, q)
        elif kind == "typo+whitespace":
            p = odd_whitespace(rng, typo(rng, q, rng.randint(1, 2)))
        else:
            p = case_punct(rng, q)
        assert p != q
        emit(q, f"sh{i}", "short", "orig")
        emit(p, f"sh{i}", "short", kind)

    # ---- viral quotes (no attribution, ends like a sentence) ----
    quotes = take_fortunes("viral-quote", 3, 10, 20,
                           pred=lambda t: "--" not in t and t[-1] in ".!?" and t[0].isupper())

    # ---- hot: 2 clusters x 30 ----
    for h, base in enumerate(take_debian("hot", 2, 400, 700)):
        t = base["text"]
        cl = f"hot{h}"
        emit(t, cl, "hot", "exact")
        for _ in range(11):
            emit(t, cl, "hot", "exact")
        for m in range(6):
            txt, var = whitespace_copy(rng, t, m % 4)
            assert collapse(txt) == collapse(t)
            emit(txt, cl, "hot", var)
        for kind in ["delete", "change", "re", "posted"] * 3:
            txt, var = light_edit(rng, t, kind)
            assert txt != t
            emit(txt, cl, "hot", var)

    # ---- boilerplate: plain + 2 templated copies ----
    for b, base in enumerate(take_debian("boilerplate", len(TEMPLATE_PAIRS), 200, 600)):
        t = base["text"]
        cl = f"bp{b}"
        emit(t, cl, "boilerplate", "plain")
        for ti in TEMPLATE_PAIRS[b]:
            name, head, foot = TEMPLATES[ti]
            emit(f"{head}\n{t}\n{foot}", cl, "boilerplate", f"wrapped:{name}")

    # ---- viral: each quote pasted into 6 unrelated hosts ----
    hosts = take_debian("viral-host", 18, 250, 650, pred=lambda t: len(sentence_breaks(t)) >= 1)
    where = ["start", "middle", "end"]
    for v, host in enumerate(hosts):
        qi, j = divmod(v, 6)
        q = quotes[qi]
        t = host["text"]
        w = where[j % 3]
        if w == "start":
            txt = f"{q} {t}" if j < 3 else f"{q}\n{t}"
        elif w == "end":
            txt = f"{t} {q}" if j < 3 else f"{t}\n\n{q}"
        else:
            br = sentence_breaks(t)
            m = min(br, key=lambda m: abs(m.start() - len(t) / 2))
            txt = t[:m.start()] + m.group() + q + m.group() + t[m.end():]
        emit(txt, f"vi{qi}_{j}", "viral", f"host:{w}", snippet=qi)

    # ---- singletons ----
    for s, base in enumerate(take_debian("singleton", 30, 150, 600)):
        emit(base["text"], f"sg{s}", "singleton", "plain")

    # ---- shuffle, assign ids, write ----
    rng.shuffle(docs)
    out = []
    for i, d in enumerate(docs):
        row = {"id": f"d{i:03d}", **d}
        out.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8", newline="\n") as f:
        for row in out:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")

    # ---- checks and summary ----
    assert len({r["id"] for r in out}) == len(out)
    counts = Counter(r["type"] for r in out)
    assert counts == {"boilerplate": 3 * len(TEMPLATE_PAIRS), "hot": 60, "short": 24,
                      "contain": 12, "viral": 18, "singleton": 30}, counts
    tpl_use = Counter(r["variant"] for r in out if r["variant"].startswith("wrapped:"))
    assert min(tpl_use.values()) >= 5, tpl_use
    assert len(used_deb) == len(set(used_deb))
    mj = pool.max_jaccard()
    assert mj < MAX_BASE_JACCARD
    print(f"wrote {args.out}: {len(out)} docs, {args.out.stat().st_size} bytes", file=sys.stderr)
    print("per type: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())), file=sys.stderr)
    print(f"base texts: {len(pool.names)}, max pairwise word-3-gram Jaccard {mj:.3f}", file=sys.stderr)
    print("template use: " + ", ".join(f"{k}={v}" for k, v in sorted(tpl_use.items())), file=sys.stderr)
    if args.list_sources:
        for role, ids in sources.items():
            print(f"{role}: {' '.join(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A corpus of one-line texts from a corpus of longer ones: each document's
first line, its id suffixed with `#<line number>` (the Debian descriptions
repeat a few ids). Made for the Debian package summaries, a second natural
source of short templated texts beside the npm descriptions:

    benches/natural/first_lines.py ../shared/data/corpora/debian_descriptions.jsonl > debian_summaries.jsonl

Standard library only.
"""
import json
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
    for i, line in enumerate(f):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            print(json.dumps({"id": f"{d['id']}#{i}", "text": d["text"].split("\n")[0]}))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
            sys.exit(f"{sys.argv[1]}:{i + 1}: want a JSON object with string fields \"id\" and \"text\" ({e!r})")

"""Document de-duplication that understands meaning, from Python.

The same Rust core as the ``semhash`` command: exact keys, character and
weighted MinHash sketches, banded LSH and a decision that weighs what differs
between two texts. Three entry points::

    import semhash_llm
    result = semhash_llm.dedup([{"id": 1, "text": "..."}, ...])   # or a DataFrame / pyarrow Table
    result.rows          # one row per document: id, cluster, representative, relation, score, parent

Documents come as mappings with an id and a text field, as ``(id, text)``
pairs, or as a pandas DataFrame or pyarrow Table with those columns; results
come back in the same kind. Ids are kept exactly as given (an integer stays an
integer; ``7`` and ``"7"`` are one id and the second is refused as a repeat).

Bad input is refused as by the command: a missing or mistyped field, an empty
text, a text over the configured limit or a repeated id raises
:class:`SemHashError` naming the record (its position from 1), unless
``on_error="skip"``, which sets it aside in ``result.skipped`` and keeps every
other document exactly once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import SemHashError

__all__ = ["dedup", "compare", "Index", "DedupResult", "SemHashError", "default_config"]

Config = Union[None, str, Mapping[str, Any]]

_RESULT_FIELDS = ("id", "cluster", "representative", "relation", "score", "parent")


@dataclass
class DedupResult:
    """What :func:`dedup` found.

    ``rows``: one per admitted document, in input order, of the input's kind
    (a list of dicts, a pandas DataFrame or a pyarrow Table) with the fields
    ``id``, ``cluster``, ``representative`` (the id kept for the cluster),
    ``relation`` (``exact``, ``near``, ``contained_in``, ``contains`` or
    ``none`` for a representative), ``score`` and ``parent`` (the document it
    duplicates, ``None`` for a representative). ``skipped``: the records set
    aside with ``on_error="skip"`` (``position``, ``id``, ``error``).
    ``stats``: counts and timings of the run.
    """

    rows: Any
    skipped: List[dict] = field(default_factory=list)
    stats: dict = field(default_factory=dict)


def default_config() -> dict:
    """The whole pipeline's configuration with its defaults (what ``semhash config`` prints)."""
    return json.loads(_native.default_config())


def _config_json(config: Config) -> Optional[str]:
    if config is None or isinstance(config, str):
        return config
    return json.dumps(config)


def _id_of(value: Any, field_name: str) -> Tuple[Optional[str], Optional[str]]:
    """An id's spelling for the core, or why it is no id (as the command words it)."""
    if isinstance(value, str):
        return value, None
    if isinstance(value, Integral) and not isinstance(value, bool):
        return str(int(value)), None
    if value is None:
        return None, f"missing id field {json.dumps(field_name)}"
    return None, f"field {json.dumps(field_name)} must be a string or an integer"


def _record(position: int, raw_id: Any, text: Any, text_field: str, id_field: str):
    if isinstance(raw_id, _NotARecord):
        return (position, None, None, "a document must be a mapping with the id and text fields, or an (id, text) pair")
    spelled, error = _id_of(raw_id, id_field)
    if spelled is not None and not _is_text(spelled):
        return (position, None, None, _NOT_TEXT.format(json.dumps(id_field)))
    if error is None and not isinstance(text, str):
        error = (
            f"missing text field {json.dumps(text_field)}"
            if text is None
            else f"field {json.dumps(text_field)} must be a string"
        )
    if error is None and not _is_text(text):
        error = _NOT_TEXT.format(json.dumps(text_field))
    return (position, spelled, text if error is None else None, error)


_NOT_TEXT = "field {} holds half a UTF-16 surrogate pair without its other half, which is not text"


def _is_text(value: str) -> bool:
    """Whether a str has a UTF-8 form: a lone surrogate (from a JSON
    ``\\ud800`` escape, or ``surrogateescape``) has none, so its record is
    refused by name, as the command refuses it, instead of failing the call."""
    try:
        value.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _columns(docs: Any, id_field: str, text_field: str) -> Optional[Tuple[str, list, list]]:
    """Ids and texts of a pandas DataFrame or a pyarrow Table, with its kind."""
    module = type(docs).__module__
    if module.startswith("pandas") and hasattr(docs, "columns"):
        for name in (id_field, text_field):
            if name not in docs.columns:
                raise SemHashError(f"no column {name!r} (columns: {', '.join(map(str, docs.columns))})")
        texts = [None if _is_missing(t) else t for t in docs[text_field].tolist()]
        return "pandas", docs[id_field].tolist(), texts
    if module.startswith("pyarrow") and hasattr(docs, "column_names"):
        for name in (id_field, text_field):
            if name not in docs.column_names:
                raise SemHashError(f"no column {name!r} (columns: {', '.join(docs.column_names)})")
        return "arrow", docs.column(id_field).to_pylist(), docs.column(text_field).to_pylist()
    return None


def _is_missing(value: Any) -> bool:
    # pandas marks a missing text NaN (a float) or None.
    return value is None or (isinstance(value, float) and value != value)


def _read(docs: Any, id_field: str, text_field: str):
    """Records for the core, the input's kind, the first id given for each
    spelling (what the results name) and each record's id as given (what a
    record set aside names)."""
    columns = _columns(docs, id_field, text_field)
    if columns is not None:
        kind, ids, texts = columns
        pairs: Iterable = zip(ids, texts)
    else:
        kind = "list"
        pairs = (_fields(doc, id_field, text_field) for doc in docs)
    records, raw_ids, given = [], [], {}
    for position, (raw_id, text) in enumerate(pairs, start=1):
        record = _record(position, raw_id, text, text_field, id_field)
        records.append(record)
        raw_ids.append(None if record[1] is None else raw_id)
        if record[1] is not None:
            given.setdefault(record[1], raw_id)
    return records, kind, given, raw_ids


def _fields(doc: Any, id_field: str, text_field: str):
    if isinstance(doc, Mapping):
        return doc.get(id_field), doc.get(text_field)
    if isinstance(doc, Sequence) and not isinstance(doc, str) and len(doc) == 2:
        return doc[0], doc[1]
    return _NotARecord(), None


class _NotARecord:
    """Stands for a document that is neither a mapping nor an (id, text) pair."""


def _shape(rows: List[dict], kind: str):
    if kind == "pandas":
        import pandas

        frame = pandas.DataFrame(rows, columns=list(_RESULT_FIELDS))
        # Ids as given: an integer id column with a missing parent must not turn into floats.
        for name in ("id", "representative", "parent"):
            frame[name] = pandas.Series([r[name] for r in rows], dtype=object)
        return frame
    if kind == "arrow":
        import pyarrow

        return pyarrow.Table.from_pylist(rows) if rows else pyarrow.table({f: [] for f in _RESULT_FIELDS})
    return rows


def _skipped(rows, raw_ids) -> List[dict]:
    return [{"position": p, "id": raw_ids[p - 1], "error": e} for p, _, e in rows]


def dedup(
    docs: Any,
    *,
    config: Config = None,
    id_field: str = "id",
    text_field: str = "text",
    on_error: str = "fail",
) -> DedupResult:
    """De-duplicates one batch of documents.

    ``docs``: mappings with ``id_field`` and ``text_field``, ``(id, text)``
    pairs, or a pandas DataFrame / pyarrow Table with those columns.
    ``config``: the pipeline's configuration (a dict or JSON, as
    :func:`default_config` gives; ``None`` for the defaults).
    ``on_error``: ``"fail"`` raises :class:`SemHashError` on the first bad
    record; ``"skip"`` sets bad records aside in ``result.skipped``.

    Every admitted id appears in ``result.rows`` exactly once, as given.
    """
    records, kind, given, raw_ids = _read(docs, id_field, text_field)
    rows, skipped, stats = _native.dedup(records, _config_json(config), on_error)
    as_given = lambda spelled: None if spelled is None else given[spelled]  # noqa: E731
    out = [
        {
            "id": as_given(i),
            "cluster": cluster,
            "representative": as_given(rep),
            "relation": relation,
            "score": score,
            "parent": as_given(parent),
        }
        for i, cluster, rep, relation, score, parent in rows
    ]
    return DedupResult(rows=_shape(out, kind), skipped=_skipped(skipped, raw_ids), stats=json.loads(stats))


def compare(a: str, b: str, *, config: Config = None) -> dict:
    """Whether two texts are duplicates: ``duplicate``, ``relation``,
    ``score``, the ``signals`` that decided and, for two short texts that
    were aligned, the ``unmatched`` words of each with their information
    (as ``semhash compare``)."""
    for name, text in (("a", a), ("b", b)):
        if not isinstance(text, str):
            raise SemHashError(f"{name} must be a string, got {type(text).__name__}")
        if not _is_text(text):
            raise SemHashError(_NOT_TEXT.format(name))
    return json.loads(_native.compare(a, b, _config_json(config)))


class Index:
    """Signatures kept in a store directory, added to and queried over time.

    The store is the one ``semhash sign --store DIR`` writes; an ``Index``
    holds its writer's lock while open (another writer waits up to
    ``lock_timeout`` seconds, then :class:`SemHashError` names the holder).
    A store made under another configuration is refused.
    """

    def __init__(self, path: str, *, config: Config = None, lock_timeout: float = 60.0):
        self._native = _native.Index(str(path), _config_json(config), float(lock_timeout))

    def add(self, docs: Any, *, id_field: str = "id", text_field: str = "text", on_error: str = "fail") -> List[dict]:
        """Signs and stores documents (as for :func:`dedup`); an id already
        stored is refused. Returns the records set aside with ``on_error="skip"``."""
        records, _, given, raw_ids = _read(docs, id_field, text_field)
        integers = {spelled for spelled, raw in given.items() if not isinstance(raw, str)}
        return _skipped(self._native.add(records, on_error, integers), raw_ids)

    def query(self, text: str) -> List[dict]:
        """The stored documents ``text`` duplicates, best first: ``id`` (an
        ``int`` when it was added as one), ``relation``, ``score``."""
        if not isinstance(text, str):
            raise SemHashError(f"text must be a string, got {type(text).__name__}")
        if not _is_text(text):
            raise SemHashError(_NOT_TEXT.format("text"))
        return [
            {"id": int(id) if integer else id, "relation": relation, "score": score}
            for id, integer, relation, score in self._native.query(text)
        ]

    def remove(self, ids: Iterable[Any]) -> List[bool]:
        """Forgets documents; for each id, whether it was stored."""
        spelled = []
        for raw in ids:
            s, error = _id_of(raw, "id")
            if error:
                raise SemHashError(error)
            spelled.append(s)
        return self._native.remove(spelled)

    def __len__(self) -> int:
        return len(self._native)

    def __contains__(self, id: Any) -> bool:
        spelled, error = _id_of(id, "id")
        return error is None and spelled in self._native

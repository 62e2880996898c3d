"""The pipeline's stage functions over Arrow record batches, for engines
that move data as Arrow: Ray Data's ``map_batches(..., batch_format="pyarrow")``,
Spark's ``mapInArrow``, Dask, Polars, DuckDB.

Each kernel takes a ``pyarrow.RecordBatch`` (or a ``Table``, or anything
``pyarrow.record_batch`` takes) and gives one back; the engine does the
joins and group-bys between them. Run in the order of the table below, the
kernels give exactly what :func:`semhash_llm.dedup` gives on the whole
input, however the rows are partitioned (``tests/test_arrow.py`` runs them
over three partitions with pyarrow as the engine).

=====================  ==============================================  =========================================
kernel                 in                                              out
=====================  ==============================================  =========================================
``exact_keys``         ``text``                                        ``exact_key`` (16 bytes)
``prepare``            ``text`` of distinct texts                      ``exact_key``, ``shingles``, ``prepared``
``content_shingles``   ``shingles``; a table ``shingle``, ``df``       ``content``
``statistics``         a table ``shingle``, ``df``, ``content_df``     statistics to sign under
``sign``               ``prepared``                                    ``signature``, ``reading`` (null if long)
``keys``               ``signature``                                   ``band_keys``, ``passage_keys``
``bucket_pairs``       ``key``, ``position``, ``copies`` (whole keys)  ``key``, ``a``, ``b``
``word_keys``          ``reading``                                     ``words``, ``contexts``, ``fillers``
``word_stats``         tables ``word``, ``texts``; ``context``,        word statistics to verify under
                       ``fillers``
``verify``             ``a``, ``b``, ``a_signature``, ``b_signature``, the links: ``a``, ``b``, ``relation``,
                       ``a_reading``, ``b_reading``                    ``score``
``cluster_component``  one component's links                           ``position``, ``representative``,
                                                                       ``parent``, ``relation``, ``score``
=====================  ==============================================  =========================================

Hashes are ``int64`` (64 bits, bit for bit), positions ``int64``: Arrow
engines do not all have unsigned integers. The Rust documentation of
``semhash::stages`` and ``semhash::stages::arrow`` says what each stage
counts and why.
"""

from __future__ import annotations

from typing import Any

from . import _config_json, _native

__all__ = ["Kernels"]


class _Exported:
    """A batch from the native side, for ``pyarrow.record_batch``."""

    def __init__(self, capsules):
        self._capsules = capsules

    def __arrow_c_array__(self, requested_schema=None):
        return self._capsules


def _batch(data: Any):
    import pyarrow as pa

    if isinstance(data, pa.Table):
        data = data.combine_chunks()
        batches = data.to_batches()
        return batches[0] if batches else pa.RecordBatch.from_pylist([], schema=data.schema)
    return data if isinstance(data, pa.RecordBatch) else pa.record_batch(data)


def _out(capsules):
    import pyarrow as pa

    return pa.record_batch(_Exported(capsules))


class Kernels:
    """The stage functions of one pipeline (``config`` as for
    :func:`semhash_llm.dedup`; the lexical pipeline only)."""

    def __init__(self, config: Any = None):
        self._native = _native.Kernels(_config_json(config))

    @property
    def min_shared_passages(self) -> int:
        """How many passage keys two texts must share to be a candidate pair."""
        return self._native.min_shared_passages

    def exact_keys(self, batch: Any):
        """``text`` -> ``exact_key``: rows with one key are exact copies."""
        return _out(self._native.exact_keys(_batch(batch)))

    def prepare(self, batch: Any):
        """``text`` of distinct texts -> ``exact_key``, ``shingles`` (each once,
        what ``df`` counts) and ``prepared`` (for :meth:`sign`)."""
        return _out(self._native.prepare(_batch(batch)))

    def content_shingles(self, batch: Any, df: Any):
        """``shingles`` -> ``content``, the shingles each text counts in
        ``content_df``; ``df`` holds (at least) the batch's shingles."""
        return _out(self._native.content_shingles(_batch(batch), _batch(df)))

    def statistics(self, docs: int, table: Any):
        """Corpus statistics of ``docs`` distinct texts from a table of
        ``shingle``, ``df``, ``content_df``, loaded once for :meth:`sign`."""
        return self._native.statistics(docs, _batch(table))

    def sign(self, batch: Any, statistics: Any):
        """``prepared`` -> ``signature`` and ``reading`` (null for a long text)."""
        return _out(self._native.sign(_batch(batch), statistics))

    def keys(self, batch: Any):
        """``signature`` -> ``band_keys`` and ``passage_keys``."""
        return _out(self._native.keys(_batch(batch)))

    def bucket_pairs(self, batch: Any):
        """``key``, ``position``, ``copies`` of every distinct text under each
        key in the batch -> each key's candidate pairs ``key``, ``a``, ``b``."""
        return _out(self._native.bucket_pairs(_batch(batch)))

    def word_keys(self, batch: Any):
        """``reading`` -> ``words``, ``contexts`` and ``fillers``."""
        return _out(self._native.word_keys(_batch(batch)))

    def word_stats(self, short_docs: int, words: Any, contexts: Any):
        """Word statistics of ``short_docs`` short texts from tables of
        ``word``, ``texts`` and of ``context``, ``fillers``."""
        return self._native.word_stats(short_docs, _batch(words), _batch(contexts))

    def verify(self, batch: Any, word_stats: Any):
        """Candidate pairs with both sides' signatures and readings -> the
        pairs that are links."""
        return _out(self._native.verify(_batch(batch), word_stats))

    def cluster_component(self, links: Any):
        """One connected component's links (exact copies linked to their
        head with relation ``exact``) -> every member's placement."""
        return _out(self._native.cluster_component(_batch(links)))


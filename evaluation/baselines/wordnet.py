"""A minimal reader of the WordNet 3.0 database files (Debian package ``wordnet-base``).

DWDCS needs three things from WordNet: a word's base form (``morphy``), its senses in
frequency order, and its synonyms (the words sharing any of its synsets). They are read from
``index.<pos>``, ``data.<pos>`` and ``<pos>.exc`` in the directory given by
``NEARDUP_WORDNET_DIR`` (default ``/usr/share/wordnet``); ``scripts/wordnet.sh`` installs it.
"""

from __future__ import annotations

import os
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from neardup.evaluation.baselines.errors import BaselineUnavailable
from neardup.ingest.settings import Settings

__all__ = ["DEFAULT_DIR", "WordNet", "load_wordnet"]

DEFAULT_DIR = str(Settings.wordnet_dir)
_POS = (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv"))
# WordNet's morphy detachment rules (wn morph.c), per part of speech.
_RULES = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}  # fmt: skip


class WordNet:
    """Senses, synonyms and base forms of single English words."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        root = Path(directory)
        missing = [f"data.{name}" for _, name in _POS if not (root / f"data.{name}").is_file()]
        if missing:
            raise BaselineUnavailable(
                f"WordNet data not found in {root} (missing {', '.join(missing)}): run "
                "scripts/wordnet.sh (installs Debian's wordnet-base) or set NEARDUP_WORDNET_DIR"
            )
        self.directory = root
        #: synset id ("n02958343") -> its words (lowercase, multi-word lemmas keep "_")
        self.synsets: dict[str, tuple[str, ...]] = {}
        #: lemma -> synset ids, senses in WordNet's frequency order, nouns first
        self.senses: dict[str, list[str]] = defaultdict(list)
        self._lemmas: dict[str, set[str]] = {}
        self._exceptions: dict[str, dict[str, list[str]]] = {}
        for pos, name in _POS:
            self._read_data(root / f"data.{name}", pos)
            self._lemmas[pos] = self._read_index(root / f"index.{name}", pos)
            self._exceptions[pos] = self._read_exceptions(root / f"{name}.exc")

    def _read_data(self, path: Path, pos: str) -> None:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("  "):  # licence header
                    continue
                fields = line.split(" ", 4 + 2 * 255)
                count = int(fields[3], 16)
                words = tuple(
                    fields[4 + 2 * i].split("(", 1)[0].lower()  # drop adjective markers "(a)"
                    for i in range(count)
                )
                self.synsets[pos + fields[0]] = words

    def _read_index(self, path: Path, pos: str) -> set[str]:
        lemmas: set[str] = set()
        if not path.is_file():  # senses can still come from the data files' word lists
            for sid, words in self.synsets.items():
                if sid[0] == pos:
                    for w in words:
                        lemmas.add(w)
                        self.senses[w].append(sid)
            return lemmas
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                fields = line.split()
                lemma, n_synsets = fields[0], int(fields[2])
                lemmas.add(lemma)
                self.senses[lemma].extend(pos + off for off in fields[-n_synsets:])
        return lemmas

    @staticmethod
    def _read_exceptions(path: Path) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {}
        if path.is_file():
            with path.open(encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    fields = line.split()
                    if len(fields) >= 2:
                        table[fields[0]] = fields[1:]
        return table

    def morphy(self, word: str) -> str | None:
        """The base form of ``word`` that WordNet knows (itself if it is a lemma), else None.

        Parts of speech are tried in the order noun, verb, adjective, adverb: exceptions
        first ("mice" -> "mouse"), then the detachment rules ("headaches" -> "headache").
        """
        if word in self.senses:
            return word
        for pos, _ in _POS:
            for base in self._exceptions[pos].get(word, ()):
                if base in self._lemmas[pos]:
                    return base
            for suffix, ending in _RULES[pos]:
                if word.endswith(suffix) and len(word) > len(suffix):
                    base = word[: len(word) - len(suffix)] + ending
                    if base in self._lemmas[pos]:
                        return base
        return None

    def synonyms(self, lemma: str) -> frozenset[str]:
        """Every word sharing a synset with ``lemma`` (the lemma included)."""
        out = {lemma}
        for sid in self.senses.get(lemma, ()):
            out.update(self.synsets.get(sid, ()))
        return frozenset(out)

    def first_sense(self, lemma: str) -> str | None:
        """The most frequent sense's synset id (nouns before verbs, adjectives, adverbs)."""
        senses = self.senses.get(lemma)
        return senses[0] if senses else None


def wordnet_dir(settings: Settings | None = None) -> str:
    """Where WordNet is looked for: ``settings.wordnet_dir`` (``$NEARDUP_WORDNET_DIR``, default
    :data:`DEFAULT_DIR`)."""
    return str((settings or Settings.from_env()).wordnet_dir)


def load_wordnet(directory: str | None = None) -> WordNet:
    """Read (once per directory) the WordNet database; raises BaselineUnavailable if absent."""
    return _load(str(Path(directory or wordnet_dir()).resolve()))


@lru_cache(maxsize=2)
def _load(directory: str) -> WordNet:
    return WordNet(directory)

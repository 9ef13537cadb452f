"""The construction secret: what makes a release impossible to replay from its public inputs.

Everything a build does is seeded, so anyone holding the public catalog, the encoder and the seed could rerun
the pipeline and recompute the semantic IDs, and with them every grade. A release built for publication
therefore mixes a secret into every construction choice an attacker could replay: the SID tokenizer's seed,
query wording, anchor assignment, pool and negative draws, the T2 split, and the opaque public ids. The secret
is drawn at build time unless given, stored in ``labels/secret.txt`` and so covered by the manifest's file
hashes (the release commitment). docs/benchmark.md ("Construction secret") gives the threat model.

Without a secret (``--seed`` given explicitly, no ``--secret``) the build is seeded by the seed alone: byte
identical to every other build with that seed, and replayable, which the manifest says.
"""

from __future__ import annotations

import hashlib
import secrets as _secrets
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fashionrq.errors import InputError
from fashionrq.seeding import STREAMS, stream

SECRET_FILE = "secret.txt"
#: Bits of a drawn secret.
SECRET_BYTES = 16


@dataclass(frozen=True)
class ConstructionSecret:
    """The user's seed, the secret (``None``: none) and where the secret came from (``given``, ``drawn`` or ``none``)."""

    seed: int
    secret: str | None
    source: str

    @classmethod
    def resolve(cls, seed: int | None, secret: str | None) -> ConstructionSecret:
        """A given secret is used as is; with no secret, an explicit ``seed`` means none, and no seed means a drawn one."""
        if secret is not None:
            if not secret.strip() or any(c.isspace() for c in secret):
                raise InputError(f"construction secret {secret!r} is empty or holds whitespace; pass a word such as a long hex string.")
            return cls(seed or 0, secret, "given")
        if seed is not None:
            return cls(seed, None, "none")
        return cls(0, _secrets.token_hex(SECRET_BYTES), "drawn")

    def _digest(self, purpose: str) -> bytes:
        return hashlib.sha256(f"fashionrq-{purpose}\0{self.seed}\0{self.secret}".encode()).digest()

    @property
    def construction_seed(self) -> int:
        """Seed of query generation, task construction and public ids: the seed itself, or 63 bits of the secret
        (an LLM server takes a 64-bit signed seed)."""
        return self.seed if self.secret is None else int.from_bytes(self._digest("construction")[:8], "big") >> 1

    @property
    def tokenizer_seed(self) -> int:
        """Seed of the SID tokenizer: the seed itself, or 31 bits of the secret (scikit-learn's k-means takes < 2**32)."""
        return self.seed if self.secret is None else int.from_bytes(self._digest("tokenizer")[:4], "big") >> 1

    def rng(self, purpose: str, *key) -> np.random.Generator:
        """The random stream ``purpose`` (a key of :data:`fashionrq.seeding.STREAMS`), drawn from this build's
        construction or tokenizer seed."""
        base = self.construction_seed if STREAMS[purpose].base == "construction" else self.tokenizer_seed
        return stream(base, purpose, *key)

    def redact(self, tokenizer: dict) -> dict:
        """The tokenizer record for the manifest: with a secret, its seed and cache key (a hash of the seed) are withheld."""
        if self.secret is None:
            return tokenizer
        return {**tokenizer, "config": {**tokenizer["config"], "seed": "withheld (construction secret)"}, "cache_key": None}

    def record(self) -> dict:
        """The manifest's ``construction.secret`` entry (never the secret itself)."""
        replay = {"none": "replayable: the seed alone seeds the construction (--seed given, no --secret)",
                  "given": "not replayable without labels/secret.txt (--secret given)",
                  "drawn": "not replayable without labels/secret.txt (drawn at build time)"}[self.source]
        return {"source": self.source, "file": None if self.secret is None else f"labels/{SECRET_FILE}", "replay": replay}

    def write(self, labels: Path) -> None:
        """``labels/secret.txt`` (nothing without a secret)."""
        if self.secret is not None:
            (Path(labels) / SECRET_FILE).write_text(self.secret + "\n", encoding="utf-8")


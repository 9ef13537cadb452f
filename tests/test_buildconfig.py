"""BuildConfig refuses a bad setting when it is made, and the named random streams are the derivations releases use."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest

from fashionrq.errors import InputError
from fashionrq.seeding import STREAMS
from fashionrq.tasks import BuildConfig
from fashionrq.tasks.secret import ConstructionSecret


@pytest.mark.parametrize("field, value", [("levels", 2), ("sid_method", "pq"), ("codebook_size", 1), ("min_purity", 1.5),
                                          ("min_size", 0), ("seed", -1), ("queries_backend", "poem")])
def test_a_bad_setting_is_refused_in_one_sentence_naming_its_field(field, value):
    with pytest.raises(InputError, match=f"BuildConfig.{field}"):
        BuildConfig(**{field: value})


def test_settings_are_keyword_only_and_the_secret_is_resolved_once():
    with pytest.raises(TypeError):
        BuildConfig("bundled")  # a positional setting
    drawn = BuildConfig()
    assert drawn.secret.source == "drawn" and dataclasses.replace(drawn, out="ELSEWHERE").secret == drawn.secret
    assert BuildConfig(seed=3).secret == ConstructionSecret(3, None, "none")
    with pytest.raises(InputError, match="BuildConfig.seed"):
        dataclasses.replace(BuildConfig(seed=3, secret="word"), seed=4)


@pytest.mark.parametrize("secret", [ConstructionSecret.resolve(0, None), ConstructionSecret.resolve(5, "word")])
def test_each_named_stream_is_the_derivation_releases_were_built_with(secret):
    """Pinned: changing a stream's derivation changes every release, so each is checked against its first form."""
    cs, ts = secret.construction_seed, secret.tokenizer_seed
    first = {"release-ids": [cs, 7], "item-ids": [cs, 11], "leaf-sample": [cs, 13], "sid-sample": [ts, 0x5A3]}
    assert set(STREAMS) == set(first) | {"verbalizer"}
    for purpose, entropy in first.items():
        assert np.array_equal(secret.rng(purpose).random(8), np.random.default_rng(entropy).random(8)), purpose
    assert np.array_equal(secret.rng("verbalizer", "3-1-4").random(8),
                          np.random.default_rng([cs, zlib.crc32(b"3-1-4")]).random(8))

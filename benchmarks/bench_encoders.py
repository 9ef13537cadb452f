"""Encoder benchmarks (a script, not a test).

    python benchmarks/bench_encoders.py bound
    python benchmarks/bench_encoders.py throughput [--n 2000] [--encoders minilm,minilm-int8,e5-small,splade-tiny]
    python benchmarks/bench_encoders.py full [--encoder minilm] [--cache DIR] [--workers 4]
    python benchmarks/bench_encoders.py profile [--n 512]
    python benchmarks/bench_encoders.py edited [--n 44446] [--every 100] [--encoder minilm-int8] [--workers 1]

``bound``: this machine's matrix-multiply throughput on one thread, per CPU-second (fp32: torch and numpy
GEMM; int8: onnxruntime ``MatMulInteger``, u8 x s8 -> s32, VNNI where the CPU has it), at the shape of a
MiniLM feed-forward layer over 1,024 tokens.
``throughput``: items/s (wall and per CPU-second of this process, all threads) of ``encode_documents`` on a
seeded sample of bundled items (no cache), with the tokens each encoder sees per item, the FLOPs that costs
(:func:`flops_per_item`) and items/CPU-s as a share of the one-thread bound (int8 bound for the int8/int4
encoders, fp32 for the others).
``full``: ingest + embed of the whole bundled catalog, each in a fresh process: cold (an empty scratch
cache dir), then the entry is copied into the default cache dir (or ``--cache``) so others reuse it, then
warm (reading it from there).
``profile``: where one thread of ``minilm-int8`` spends its time on a seeded sample of bundled item texts: each
kernel and the integer products timed from Python around every call, as a share of the whole pass.
``edited``: ``fashionrq embed`` (the CLI, a process each, wall time) of the first ``--n`` bundled items into an empty
cache, then of the same items with every ``--every``-th name edited into that cache (the cache gathers the texts it
holds and encodes the rest), then of the edited items into another empty cache; checks the two edited embeddings
are the same bytes. The cache gathers texts for a batch-invariant encoder only: pass ``--encoder minilm-int8``.
``--workers`` is passed to every call (``--workers 2``: the pool kept for every chunk).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _threads(n: int) -> None:
    import torch

    torch.set_num_threads(n)
    os.environ.setdefault("OMP_NUM_THREADS", str(n))


#: (layers, hidden, feed-forward, output vocabulary computed per token or 0) of each offline encoder.
ARCHITECTURES = {
    "minilm": (6, 384, 1536, 0), "minilm-int8": (6, 384, 1536, 0), "e5-small": (12, 384, 1536, 0),
    "splade-tiny": (2, 128, 512, 30522),
}
#: Which measured bound each encoder's matmuls run at.
PRECISION = {"minilm": "fp32", "minilm-int8": "int8", "e5-small": "int8", "splade-tiny": "fp32"}
GEMM_SHAPE = (1024, 384, 1536)


def flops_per_item(name: str, tokens: list[int]) -> float:
    """Mean multiply-add work (2 FLOPs each) per item: per layer and token the Q, K, V, O projections (4 H^2)
    and the feed-forward (2 H F), attention scores and mixing (2 L H for a sequence of L tokens), plus an
    MLM head (H^2 + H V) per token where the encoder has one."""
    layers, hidden, ff, vocab = ARCHITECTURES[name]
    per = [layers * (2 * t * (4 * hidden**2 + 2 * hidden * ff) + 4 * t * t * hidden)
           + (2 * t * (hidden**2 + hidden * vocab) if vocab else 0) for t in tokens]
    return sum(per) / len(per)


def token_counts(name: str, texts: list[str]) -> list[int]:
    """Tokens (specials included, after truncation) the encoder feeds per text."""
    from fashionrq.encoders import get_encoder

    encoder = get_encoder(name)
    if name == "e5-small":
        return [encoder.model.token_count(t, False) for t in texts]
    if name == "splade-tiny":
        return [len(ids) for ids in encoder.tokenizer(texts, truncation=True, max_length=128)["input_ids"]]
    from fashionrq.encoders.minilm_int8 import minilm_tokenizer

    tokenizer = minilm_tokenizer()
    return [len(e.ids) for e in tokenizer.encode_batch(texts)]


def _best_gflops(fn, flops: float, repeat: int = 5) -> dict:
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {"gflops_per_wall_s": round(flops / min(walls) / 1e9, 1), "gflops_per_cpu_s": round(flops / min(cpus) / 1e9, 1)}


def measure_bounds() -> dict[str, dict]:
    """One-thread GEMM throughput: fp32 (torch, numpy, onnxruntime) and int8 (onnxruntime MatMulInteger)."""
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnx import TensorProto, helper, numpy_helper

    _threads(1)
    m, k, n = GEMM_SHAPE
    flops = 2.0 * m * k * n * 10
    a, b = torch.randn(m, k), torch.randn(k, n)
    out = {"fp32 torch": _best_gflops(lambda: [a @ b for _ in range(10)], flops)}
    an, bn = a.numpy(), b.numpy()
    out["fp32 numpy"] = _best_gflops(lambda: [an @ bn for _ in range(10)], flops)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    for label, op, xtype, weight, x in (
        ("int8 onnxruntime MatMulInteger", "MatMulInteger", TensorProto.UINT8,
         np.random.default_rng(0).integers(-127, 127, (k, n)).astype(np.int8),
         np.random.default_rng(1).integers(0, 255, (m, k)).astype(np.uint8)),
        ("fp32 onnxruntime MatMul", "MatMul", TensorProto.FLOAT, bn, an),
    ):
        graph = helper.make_graph(
            [helper.make_node(op, ["x", "w"], ["y"])], "gemm", [helper.make_tensor_value_info("x", xtype, [m, k])],
            [helper.make_tensor_value_info("y", TensorProto.INT32 if op == "MatMulInteger" else TensorProto.FLOAT, [m, n])],
            [numpy_helper.from_array(weight, "w")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        out[label] = _best_gflops(lambda: [session.run(None, {"x": x}) for _ in range(10)], flops)
    return out


def bound(_: argparse.Namespace | None = None) -> dict[str, float]:
    """Print and return the per-precision bound (best GFLOP per CPU-second on one thread)."""
    results = measure_bounds()
    for label, value in results.items():
        print(json.dumps({"gemm": label, "shape": GEMM_SHAPE, **value}), flush=True)
    fp32 = max(v["gflops_per_cpu_s"] for k, v in results.items() if k.startswith("fp32"))
    int8 = results["int8 onnxruntime MatMulInteger"]["gflops_per_cpu_s"]
    return {"fp32": fp32, "int8": int8}


def throughput(n: int, encoders: list[str], threads: int) -> None:
    import numpy as np

    from fashionrq.catalog import bundled_items
    from fashionrq.encoders import get_encoder, item_texts

    bounds = bound()
    _threads(threads)
    table = bundled_items()
    rows = np.random.default_rng(0).choice(table.num_rows, size=n, replace=False)
    texts = item_texts(table.take(np.sort(rows)))
    for name in encoders:
        encoder = get_encoder(name)
        start = time.perf_counter()
        encoder.encode_documents(texts[:8])  # loads the model
        load = time.perf_counter() - start
        start, cpu = time.perf_counter(), time.process_time()
        vectors = encoder.encode_documents(texts)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        tokens = token_counts(name, texts)
        flops = flops_per_item(name, tokens)
        limit = bounds[PRECISION[name]] * 1e9 / flops  # items per CPU-second at the one-thread GEMM bound
        print(json.dumps({"encoder": name, "n": n, "threads": threads, "load_s": round(load, 2),
                          "seconds": round(seconds, 2), "items_per_s": round(n / seconds, 1),
                          "cpu_s": round(cpu, 2), "items_per_cpu_s": round(n / cpu, 1),
                          "tokens_mean": round(sum(tokens) / len(tokens), 1), "tokens_p50_p90_max": _quantiles(tokens),
                          "gflop_per_item": round(flops / 1e9, 3), "bound": PRECISION[name],
                          "bound_items_per_cpu_s": round(limit, 1), "share_of_bound": round(n / cpu / limit, 3),
                          "shape": list(vectors.shape)}), flush=True)


#: The ``minilm-int8`` steps ``profile`` times (module functions the layers call).
PROFILED = ("quantize_rows", "gelu_quantized", "dequantize_add", "layer_norm", "attention", "mean_pool")


def profile(n: int) -> None:
    import collections

    import numpy as np

    import fashionrq.encoders.minilm_int8 as exact
    from fashionrq.catalog import bundled_items
    from fashionrq.encoders import item_texts

    table = bundled_items()
    texts = item_texts(table.take(np.sort(np.random.default_rng(0).choice(table.num_rows, size=n, replace=False))))
    encoder = exact.MiniLMInt8Encoder(threads=1)
    encoder.encode_documents(texts[:8])  # loads the model and the compiled kernels
    seconds = collections.Counter()

    def timed(name, function):
        def call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[name] += time.perf_counter() - start
        return call

    for name in PROFILED:
        setattr(exact, name, timed(name, getattr(exact, name)))
    for layer in encoder.model.layers:
        for dense in (layer.qkv, layer.attention_out, layer.expand, layer.contract):
            dense.session.run = timed("integer products (onnxruntime MatMulInteger)", dense.session.run)
    encoder.tokenizer.encode_batch = timed("tokenize", encoder.tokenizer.encode_batch)
    start = time.perf_counter()
    encoder.encode_documents(texts)
    wall = time.perf_counter() - start
    seconds["other"] = wall - sum(seconds.values())
    print(json.dumps({"encoder": "minilm-int8", "n": n, "threads": 1, "seconds": round(wall, 2),
                      "share": {name: round(s / wall, 3) for name, s in seconds.most_common()}}))


def _quantiles(values: list[int]) -> list[int]:
    ordered = sorted(values)
    return [ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.9)], ordered[-1]]


def full_child(encoder: str, cache: str | None, threads: int, workers: int) -> None:
    """One ingest + embed of the bundled catalog; prints a JSON line with timings."""
    start = time.perf_counter()
    _threads(threads)
    from fashionrq.catalog import bundled_items
    from fashionrq.encoders import cache_path, embed_items, get_encoder, item_texts

    table = bundled_items()
    ingest_s = time.perf_counter() - start
    enc = get_encoder(encoder)
    path = cache_path(enc, item_texts(table), "document", Path(cache) if cache else None)
    hit = path.exists()
    vectors = embed_items(table, encoder, Path(cache) if cache else None, workers=workers)
    total = time.perf_counter() - start
    print(json.dumps({"encoder": encoder, "items": table.num_rows, "workers": workers, "cache_hit": hit, "texts_encoded": enc.texts_encoded,
                      "ingest_s": round(ingest_s, 2), "total_s": round(total, 2), "shape": list(vectors.shape),
                      "cache_file": str(path)}), flush=True)


def publish(src: Path, cache: str | None) -> Path:
    """Copy a cache entry computed in a scratch dir into ``cache`` (default: the shared cache), atomically."""
    from fashionrq.layout import default_cache_dir

    root = Path(cache) if cache else default_cache_dir()
    dest = root / src.relative_to(src.parents[2])
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists():
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    return dest


def full(encoder: str, cache: str | None, threads: int, workers: int) -> None:
    """Cold: a fresh, empty cache dir. The entry is then published to ``cache`` (default: shared cache) and
    the warm run reads it from there."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="fashionrq-cold-") as scratch:
        for label, where in (("cold", scratch), ("warm", cache)):
            cmd = [sys.executable, __file__, "_full_child", "--encoder", encoder, "--threads", str(threads),
                   "--workers", str(workers)]
            if where:
                cmd += ["--cache", where]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            result = json.loads(out)
            runs.append(result)
            print(label, json.dumps(result), flush=True)
            if label == "cold":
                print("published", publish(Path(result["cache_file"]), cache), flush=True)
    if runs[0]["cache_hit"] or not runs[1]["cache_hit"]:
        print("note: cold run hit or warm run missed the cache", flush=True)
    print(f"speed-up warm vs cold: {runs[0]['total_s'] / runs[1]['total_s']:.1f}x", flush=True)


def edited(n: int, every: int, encoder: str, workers: int) -> None:
    """The ``edited`` mode (module docstring)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fashionrq.catalog import bundled_items

    table = bundled_items().slice(0, n)
    names = table.column("name").to_pylist()
    changed = [f"{name} (new season)" if name and i % every == every // 2 else name for i, name in enumerate(names)]
    with tempfile.TemporaryDirectory(prefix="fashionrq-edited-") as tmp:
        folder = Path(tmp)
        pq.write_table(table, folder / "original.parquet")
        pq.write_table(table.set_column(table.schema.get_field_index("name"), "name", pa.array(changed, pa.string())),
                       folder / "edited.parquet")
        print(f"{n:,} items, {sum(a != b for a, b in zip(names, changed)):,} names edited; {encoder}, --workers {workers}")
        for label, items, cache in (("original, empty cache", "original", "a"), ("edited, same cache", "edited", "a"),
                                    ("edited, empty cache", "edited", "b")):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "fashionrq", "embed", str(folder / f"{items}.parquet"), "--encoder", encoder,
                            "--workers", str(workers), "--cache", str(folder / cache), "--out", str(folder / f"{items}-{cache}.npy")],
                           check=True, capture_output=True)
            print(f"{label}: {time.perf_counter() - start:.1f} s", flush=True)
        same = (folder / "edited-a.npy").read_bytes() == (folder / "edited-b.npy").read_bytes()
        print("the two edited embeddings are the same bytes" if same else "the two edited embeddings DIFFER")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["bound", "throughput", "full", "profile", "edited", "_full_child"])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--encoders", default="minilm,minilm-int8,e5-small,splade-tiny")
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--cache", default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes for a cache miss (full and edited modes)")
    parser.add_argument("--every", type=int, default=100, help="edit every N-th name (edited mode)")
    args = parser.parse_args()
    if args.mode == "bound":
        bound()
    elif args.mode == "throughput":
        throughput(args.n, args.encoders.split(","), args.threads)
    elif args.mode == "full":
        full(args.encoder, args.cache, args.threads, args.workers)
    elif args.mode == "profile":
        profile(args.n)
    elif args.mode == "edited":
        edited(args.n, args.every, args.encoder, args.workers)
    else:
        full_child(args.encoder, args.cache, args.threads, args.workers)


if __name__ == "__main__":
    main()

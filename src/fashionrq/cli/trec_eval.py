"""``fashionrq trec-eval``: a drop-in for trec_eval (every measure pytrec_eval supports, trec_eval's output).

Its options are parsed with argparse and its messages written to stderr as plain text, so the process imports
neither typer nor rich: start-up is part of the time it is compared on (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = "Evaluate a TREC run against qrels and print trec_eval's output, line for line."


def parser() -> argparse.ArgumentParser:
    """The options of trec_eval that fashionrq supports, under trec_eval's own letters."""
    p = argparse.ArgumentParser(prog="fashionrq trec-eval", description=DESCRIPTION)
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file: 'qid iter docno grade' lines.")
    p.add_argument("run", metavar="RUN", help="TREC run file: 'qid Q0 docno rank score tag' lines.")
    p.add_argument("-m", "--measure", "--metric", action="append", default=[], metavar="MEASURE",
                   help="Measure, repeatable, in trec_eval syntax: official (the default), all_trec, set, map, P.5,10, "
                   "ndcg_cut.5,10,20, success.1,5,10, iprec_at_recall, Rprec, bpref, num_rel, ... and gain maps such as "
                   "ndcg.3=100,2=10,1=1. fashionrq names (ndcg@10, recall@10(rel=3), ...) are printed after them.")
    p.add_argument("-q", "--per-query", action="store_true", help="Print every query's values before the 'all' summary.")
    p.add_argument("-c", "--complete", action="store_true",
                   help="Average over every query in the qrels (those without results count as 0), as trec_eval -c.")
    p.add_argument("-l", "--level", type=int, default=1, help="Relevance level: grades >= LEVEL count as relevant (trec_eval -l).")
    p.add_argument("-J", dest="judged_only", action="store_true", help="Drop unjudged documents from the ranking first (trec_eval -J).")
    p.add_argument("-M", dest="max_docs", type=_at_least(1), default=None, help="Evaluate only the top MAX documents of each query (trec_eval -M).")
    p.add_argument("-N", dest="num_docs", type=_at_least(0), default=0, help="Documents in the collection, for utility (trec_eval -N).")
    return p


def _at_least(low: int):
    def parse(text: str) -> int:
        value = int(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value

    return parse


def main(argv: list[str], whole_process: bool = False) -> None:
    """Run trec-eval on ``argv``; ``whole_process``: this process runs nothing else (see :func:`lighten_process`)."""
    from fashionrq.errors import FashionRQError

    args = parser().parse_args(argv)
    if whole_process:
        lighten_process()
    try:
        sys.stdout.write(evaluate_files(args))
    except FashionRQError as err:
        sys.stderr.write(f"error: {err}\n")
        sys.exit(err.exit_code)


def _is_fashionrq_name(spec: str) -> bool:
    return "@" in spec or "(rel=" in spec


def _warn(sentence: str) -> None:
    sys.stderr.write(f"warning: {sentence}\n")


def evaluate_files(args: argparse.Namespace) -> str:
    """trec_eval's output for the parsed options (warnings go to stderr)."""
    from fashionrq.metrics.trec import check_run_against_qrels
    from fashionrq.metrics.trec_eval import parse_measures, trec_eval

    ours = [s for s in args.measure if _is_fashionrq_name(s)]
    trec_specs = [s for s in args.measure if not _is_fashionrq_name(s)] or ([] if ours else None)
    parse_measures(trec_specs)  # refuse a bad name before reading any file
    if ours:
        from fashionrq.metrics.ranking import parse_metrics

        parse_metrics(ours)
    qrels, run = _read_both(args.qrels, args.run)
    for sentence in check_run_against_qrels(run, qrels).describe(str(args.run), str(args.qrels)):
        _warn(sentence)
    text = ""
    if trec_specs is None or trec_specs:
        result = trec_eval(qrels, run, trec_specs, relevance_level=args.level, complete=args.complete,
                           judged_only=args.judged_only, max_docs=args.max_docs, num_docs=args.num_docs)
        for warning in result.warnings():
            _warn(warning)
        text = result.format(per_query=args.per_query)
    if ours:
        text += _fashionrq_lines(qrels, run, ours, args.per_query, args.level, args.complete)
    return text


def _read_both(qrels_path: str, run_path: str):
    """(qrels, run), the qrels read in a second thread while this one reads the run (the readers release the GIL,
    so on a free core the smaller file costs no wall time); a bad qrels file is reported first, as when read first."""
    import threading

    from fashionrq.metrics.trec import read_qrels, read_run

    done: dict = {}

    def read() -> None:
        try:
            done["qrels"] = read_qrels(qrels_path)
        except BaseException as err:  # handed to the main thread, which raises it
            done["error"] = err

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    try:
        run = read_run(run_path)
    finally:
        worker.join()
        if "error" in done:
            raise done["error"]
    return done["qrels"], run


def _fashionrq_lines(qrels, run, names: list[str], per_query: bool, level: int, complete: bool) -> str:
    """fashionrq-named metrics (ndcg@10, recall@10(rel=3), ...) in trec_eval's line format, after its measures."""
    from fashionrq.metrics.ranking import evaluate, parse_metrics

    parsed = parse_metrics(names)
    values = evaluate(qrels, run, [m.name for m in parsed], per_query=True, relevance_level=level, complete=complete)
    lines = []
    if per_query:
        for qid, row in values.items():
            lines.extend(f"{m.label:<22s}\t{qid}\t{row[m.name]:6.4f}\n" for m in parsed)
    for m in parsed:
        mean = sum(row[m.name] for row in values.values()) / len(values)
        lines.append(f"{m.label:<22s}\tall\t{mean:6.4f}\n")
    return "".join(lines)


def lighten_process() -> None:
    """In a process that only runs ``trec-eval``: keep pyarrow from importing pandas and cloudpickle, use the system
    allocator.

    pyarrow imports pandas (0.3 s of CPU) on first use just to recognise pandas objects, and cloudpickle (with
    logging, 15 ms) at import for pickling Python objects; trec-eval needs neither. Called only from the process
    entry point, never in-process, so no other caller is affected.
    """
    absent = {name for name in ("pandas", "cloudpickle") if name not in sys.modules}
    if absent:
        sys.meta_path.insert(0, _Absent(absent))
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())  # fewer page faults than mimalloc here: ~0.3 s less system CPU
    _keep_freed_memory()


def _keep_freed_memory() -> None:
    """glibc: serve large arrays from the heap and keep freed memory there, so the dozen whole-array passes reuse
    pages instead of mapping and zero-faulting fresh ones each time (Linux only; a no-op elsewhere)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None)  # this process's symbols, libc's among them (ctypes.util.find_library runs ldconfig: 0.1 s)
        libc.mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD: no mmap below 1 GiB
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep up to 1 GiB of freed heap
        libc.mallopt(-8, 1)  # M_ARENA_MAX: one arena, so memory the parse threads free is reused by the rest
    except (OSError, AttributeError):
        pass


class _Absent:
    """An import finder that reports ``packages`` as absent, which pyarrow handles as 'not installed' (for
    cloudpickle it falls back to the standard pickle)."""

    def __init__(self, packages: set[str]) -> None:
        self.packages = packages

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in self.packages:
            raise ModuleNotFoundError(f"{name} is not loaded by fashionrq trec-eval", name=name)

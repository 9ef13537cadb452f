"""Label-blind adversarial probes (``probe-*``) and the query-blind baseline: pool systems over BENCH/public/.

A pool system reads the whole public view of a release (:class:`PublicView`) and scores each pool's
candidates (:meth:`score_pool`). ``run_system`` runs it sealed like any system (:func:`execute_pool` inside the
child) and writes its run in the usual format, so ``commit`` and ``score`` treat it like any retriever.
"""

from fashionrq.systems.probes.attacks import PROBES, Probe
from fashionrq.systems.probes.centroid import QueryBlindCentroid
from fashionrq.systems.probes.run import execute_pool
from fashionrq.systems.probes.view import Pool, PublicView

#: Every pool system by name: the probes and the query-blind baseline.
POOL_SYSTEMS = {**PROBES, QueryBlindCentroid.name: QueryBlindCentroid}

__all__ = ["POOL_SYSTEMS", "PROBES", "Pool", "Probe", "PublicView", "QueryBlindCentroid", "execute_pool"]

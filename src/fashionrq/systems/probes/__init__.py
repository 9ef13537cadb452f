"""Label-blind adversarial probes (``probe-*``) and the query-blind baseline: pool systems over BENCH/public/.

A pool system reads the whole public view of a release (:class:`PublicView`) and scores each pool's
candidates (:meth:`score_pool`). ``run_system`` runs it sealed like any system (:func:`execute_pool` inside the
child) and writes its run in the usual format, so ``commit`` and ``score`` treat it like any retriever.
"""

from fashionrq.systems.probes.attacks import PROBES, Probe
from fashionrq.systems.probes.centroid import QueryBlindCentroid
from fashionrq.systems.probes.run import execute_pool
from fashionrq.systems.probes.structure import QueryBlindStructure
from fashionrq.systems.probes.view import Pool, PublicView

#: The query-blind baselines: they read item content, never the query.
QUERY_BLIND_SYSTEMS = {QueryBlindCentroid.name: QueryBlindCentroid, QueryBlindStructure.name: QueryBlindStructure}
#: Every pool system by name: the probes and the query-blind baselines.
POOL_SYSTEMS = {**PROBES, **QUERY_BLIND_SYSTEMS}

__all__ = ["POOL_SYSTEMS", "PROBES", "Pool", "Probe", "PublicView", "QUERY_BLIND_SYSTEMS", "QueryBlindCentroid",
           "QueryBlindStructure", "execute_pool"]

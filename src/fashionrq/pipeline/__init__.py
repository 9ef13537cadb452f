"""The pipeline: run systems, commit, score and compare, and the demo's orchestration.

It sits above ``systems`` and ``protocol`` (it runs the one and applies the other) and below ``report`` (which
renders what it returns) and ``cli``. ``runs`` is the one run -> commit -> score sequence; ``probes``, ``mcmr``
and ``demo`` build on it.
"""

"""fashionrq: graded, attribute-aware fashion-retrieval benchmarks built from any product catalog."""

__version__ = "0.1.0"

"""The evaluation protocol: release verification, commitment before labels, fail-closed scoring, paired bootstrap.

Order of gates when scoring a run: run.json names this release -> predictions match their latest
commitment -> public half of the release verifies -> predictions validate against the public pools
-> labels verify -> only then are labels opened.
"""

from fashionrq.io import sha256_file
from fashionrq.protocol.commitment import check_commitment, commit_run, read_ledger
from fashionrq.protocol.validate import load_pools, validate_run
from fashionrq.release import release_hash, verify_release

__all__ = [
    "check_commitment",
    "commit_run",
    "load_pools",
    "read_ledger",
    "release_hash",
    "sha256_file",
    "validate_run",
    "verify_release",
]

#!/usr/bin/env python3
"""Writes asset-hash-v2.json: test vectors for the asset hash, version 2 (an asset's own key space:
the hash covers its trackID and owner besides assetId and data).

This is a second implementation of the rule, written from the README's text without the
TypeScript code under test: SHA-256 from Python's standard library, RFC 8785 from the reference in
scripts/generate-test-vectors.py (checked first against the RFC's own examples). The JSON it
writes is committed: test/asset-hash-vectors.test.ts checks this package, and Node's own SHA-256
over the vector's canonical text, against it; test/vector-generators.test.ts runs this script in
`npm test` and CI and fails when it writes anything else.

Usage (python3 >= 3.9, from packages/verifier):
  python3 test/vectors/generate-asset-hash-v2.py           # rewrite test/vectors/asset-hash-v2.json
  python3 test/vectors/generate-asset-hash-v2.py --check   # fail if the file is out of date
  python3 test/vectors/generate-asset-hash-v2.py --output PATH
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_DIR = HERE.parent.parent
OUTPUT = HERE / "asset-hash-v2.json"

_spec = importlib.util.spec_from_file_location("vectors_v1", PACKAGE_DIR / "scripts" / "generate-test-vectors.py")
assert _spec is not None and _spec.loader is not None
_v1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_v1)
jcs = _v1.jcs

DOMAIN = "Trustpoint asset hash v2\n"

TRACK_A = "did:trustpoint:trackid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12"
TRACK_B = "did:trustpoint:trackid:0194f0c5-0a11-7b00-8c00-000000000002"
TRACK_C = "did:acme:trackid:01950a7b-1c00-7000-8000-000000000003"
OWNER_A = "did:user:auth0%7C5f7c8ec7c33c6c004bbafe82"
OWNER_B = "did:user:9b2e4f10-0000-4000-8000-00000000000b"
PALLET = {"assetId": "pallet-0042", "data": {"id": "P-42", "version": "1"}}


def double_hash(data: bytes) -> tuple[str, str]:
    inner = hashlib.sha256(data).digest()
    return inner.hex(), hashlib.sha256(inner).hexdigest()


def vector(description: str, track_id: str, owner: str, asset: dict) -> dict:
    payload = {"hashVersion": 2, "trackID": track_id, "owner": owner, **asset}
    canonical = jcs(payload)
    preimage = DOMAIN.encode("utf-8") + canonical.encode("utf-8")
    inner, outer = double_hash(preimage)
    _, version_one = double_hash(jcs(asset).encode("utf-8"))
    return {
        "description": description,
        "input": {"trackID": track_id, "owner": owner, **asset},
        "canonicalPayload": canonical,
        "preimageHex": preimage.hex(),
        "innerDigestHex": inner,
        "expected": outer,
        "versionOneHash": version_one,
    }


def build() -> dict:
    _v1.check_jcs_against_rfc()
    vectors = [
        vector("listing-style data with id and version", TRACK_A, OWNER_A, PALLET),
        vector("the same assetId and data, another owner's asset", TRACK_B, OWNER_B, PALLET),
        vector("the same owner, assetId and data, another asset (trackID)", TRACK_B, OWNER_A, PALLET),
        vector(
            "nested data, unsorted keys, non-ASCII, 0, false, empty string, null, empty array and object",
            TRACK_C,
            OWNER_A,
            {
                "assetId": "lot/2026-\u03b1",
                "data": {
                    "origin": {"site": "Almer\u00eda", "country": "ES"},
                    "batch": [3, 1, 2],
                    "count": 0,
                    "recalled": False,
                    "note": "",
                    "grade": None,
                    "tags": [],
                    "extra": {},
                    "weightKg": 12.5,
                },
            },
        ),
        vector("empty data", TRACK_A, OWNER_B, {"assetId": "x", "data": {}}),
    ]
    hashes = [item["expected"] for item in vectors]
    assert len(set(hashes)) == len(hashes), "every vector must differ"
    assert vectors[0]["versionOneHash"] == vectors[1]["versionOneHash"] == vectors[2]["versionOneHash"]
    return {
        "about": (
            "Trustpoint asset hash, version 2: inputs and expected outputs, written by "
            "test/vectors/generate-asset-hash-v2.py (Python's hashlib and the RFC 8785 reference of "
            "scripts/generate-test-vectors.py). See README.md, \"Asset hash, version 2\"."
        ),
        "version": 2,
        "rule": (
            "assetHash = hex(sha256(sha256(utf8(domain) || JCS({hashVersion: 2, trackID, owner, "
            "assetId, data})))), the inner digest taken as its raw 32 bytes"
        ),
        "domain": DOMAIN,
        "assetHash": vectors,
    }


def main() -> int:
    options = _v1.vector_options(OUTPUT)
    text = _v1.prettier(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", OUTPUT.name)
    return _v1.write_vectors(text, OUTPUT, options, "python3 test/vectors/generate-asset-hash-v2.py")


if __name__ == "__main__":
    sys.exit(main())

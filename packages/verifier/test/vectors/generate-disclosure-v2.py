#!/usr/bin/env python3
"""Writes disclosure-v2.json: test vectors for the certificate hash, version 2 (every shown field
covered, the content selectively disclosable as RFC 9901, SD-JWT, specifies).

This is a second implementation of the rule, written from the README's text and RFC 9901 without
the TypeScript code under test: base64url and SHA-256 from Python's standard library, RFC 8785
from the reference in scripts/generate-test-vectors.py (checked first against the RFC's own
examples). The JSON it writes is committed: test/disclosure-vectors.test.ts checks both our
implementation and the OpenWallet Foundation's SD-JWT libraries against it, and
test/vector-generators.test.ts runs this script in `npm test` and CI and fails when it writes
anything else.

Usage (python3 >= 3.9, from packages/verifier):
  python3 test/vectors/generate-disclosure-v2.py           # rewrite test/vectors/disclosure-v2.json
  python3 test/vectors/generate-disclosure-v2.py --check   # fail if the file is out of date
  python3 test/vectors/generate-disclosure-v2.py --output PATH
"""

from __future__ import annotations

import base64
import copy
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_DIR = HERE.parent.parent
OUTPUT = HERE / "disclosure-v2.json"

_spec = importlib.util.spec_from_file_location("vectors_v1", PACKAGE_DIR / "scripts" / "generate-test-vectors.py")
assert _spec is not None and _spec.loader is not None
_v1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_v1)
jcs = _v1.jcs
utf16_units = _v1.utf16_units

DOMAIN = "Trustpoint certificate hash v2\n"
SD_ALG = "sha-256"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def vector_salt(path: list) -> str:
    """Fixed salts for vectors only (real ones are 128 random bits): 16 bytes derived from the path."""
    return b64url(sha256(("trustpoint test vector salt " + jcs(path)).encode("utf-8"))[:16])


def disclosure(salt: str, name, value) -> dict:
    array = [salt, value] if name is None else [salt, name, value]
    encoded = b64url(jcs(array).encode("utf-8"))
    return {"encoded": encoded, "digest": b64url(sha256(encoded.encode("ascii"))), "decoded": array}


def pack(value, path: list, in_clear: list, out: list):
    """SD form of `value` (every member and element disclosable unless in clear); appends the
    disclosures to `out`, a parent before its children, members in RFC 8785 order."""
    if isinstance(value, list):
        packed = []
        for index, element in enumerate(value):
            child = path + [index]
            if child in in_clear:
                packed.append(element)
                continue
            mine: list = []
            inner = pack(element, child, in_clear, mine)
            made = disclosure(vector_salt(child), None, inner)
            out.append({"path": child, **made})
            out.extend(mine)
            packed.append({"...": made["digest"]})
        return packed
    if isinstance(value, dict):
        packed = {}
        digests = []
        for name in sorted(value, key=utf16_units):
            child = path + [name]
            if child in in_clear:
                packed[name] = value[name]
                continue
            mine = []
            inner = pack(value[name], child, in_clear, mine)
            made = disclosure(vector_salt(child), name, inner)
            out.append({"path": child, **made})
            out.extend(mine)
            digests.append(made["digest"])
        if digests:
            packed["_sd"] = sorted(digests)
        return packed
    return value


def unpack(value, by_digest: dict):
    """Reveals an SD value with the disclosures of `by_digest` (no checks: inputs are our own)."""
    if isinstance(value, list):
        revealed = []
        for element in value:
            if isinstance(element, dict) and list(element) == ["..."]:
                found = by_digest.get(element["..."])
                if found is not None:
                    revealed.append(unpack(found[1], by_digest))
            else:
                revealed.append(unpack(element, by_digest))
        return revealed
    if isinstance(value, dict):
        revealed = {name: unpack(member, by_digest) for name, member in value.items() if name != "_sd"}
        for digest in value.get("_sd", []):
            found = by_digest.get(digest)
            if found is not None:
                revealed[found[1]] = unpack(found[2], by_digest)
        return revealed
    return value


def withheld_of(value, path: list, by_digest: dict, out: list) -> None:
    if isinstance(value, list):
        for index, element in enumerate(value):
            if isinstance(element, dict) and list(element) == ["..."]:
                found = by_digest.get(element["..."])
                if found is None:
                    out.append({"kind": "element", "path": path + [index], "digest": element["..."]})
                else:
                    withheld_of(found[1], path + [index], by_digest, out)
            else:
                withheld_of(element, path + [index], by_digest, out)
    elif isinstance(value, dict):
        for name in sorted(value, key=utf16_units):
            if name != "_sd":
                withheld_of(value[name], path + [name], by_digest, out)
        for digest in value.get("_sd", []):
            found = by_digest.get(digest)
            if found is None:
                out.append({"kind": "member", "objectPath": path, "digest": digest})
            else:
                withheld_of(found[2], path + [found[1]], by_digest, out)


SHOWN = ["type", "name", "description", "issuer", "issuerOrigin", "issuerDomain", "issuedOn", "expires", "fileHash"]


def payload_of(cert_id: str, data: dict, sd_content: dict) -> dict:
    payload = {"_sd_alg": SD_ALG, "hashVersion": 2, "certID": cert_id}
    for name in SHOWN:
        if name in data:
            payload[name] = data[name]
    payload["content"] = sd_content
    return payload


def root_of(payload: dict) -> str:
    inner = sha256(DOMAIN.encode("utf-8") + jcs(payload).encode("utf-8"))
    return hashlib.sha256(inner).hexdigest()


def make_vector(description: str, certificate: dict, in_clear: list, withholds: list, tampered: list) -> dict:
    data = certificate["data"]
    made: list = []
    sd_content = pack(data["content"], ["content"], in_clear, made)
    payload = payload_of(certificate["certID"], data, sd_content)
    root = root_of(payload)
    encoded = [item["encoded"] for item in made]
    issued = copy.deepcopy(certificate)
    issued["data"].update(
        {"hash": root, "hashVersion": 2, "selectiveDisclosure": {"content": sd_content, "disclosures": encoded}}
    )
    by_path = {jcs(item["path"]): item for item in made}

    def under(path: list, ancestor: list) -> bool:
        return path[: len(ancestor)] == ancestor

    withhold_cases = []
    for case_description, paths in withholds:
        kept = [item for item in made if not any(under(item["path"], p) for p in paths)]
        by_digest = {item["digest"]: item["decoded"] for item in kept}
        content = unpack(sd_content, by_digest)
        withheld: list = []
        withheld_of(sd_content, ["content"], by_digest, withheld)
        assert all(jcs(p) in by_path for p in paths)
        withhold_cases.append(
            {
                "description": case_description,
                "paths": paths,
                "expected": {
                    "disclosures": [item["encoded"] for item in kept],
                    "content": content,
                    "withheld": withheld,
                },
            }
        )

    tampered_cases = []
    for case_description, member, value in tampered:
        changed = copy.deepcopy(data)
        if value is None:
            del changed[member]
        else:
            changed[member] = value
        tampered_cases.append(
            {
                "description": case_description,
                "data": {member: value} if value is not None else {member: None},
                "expectedHash": root_of(payload_of(certificate["certID"], changed, sd_content)),
            }
        )
        assert tampered_cases[-1]["expectedHash"] != root

    return {
        "description": description,
        "input": {
            "certificate": certificate,
            "inClear": in_clear,
            "salts": [{"path": item["path"], "salt": item["decoded"][0]} for item in made],
        },
        "expected": {
            "disclosures": made,
            "payload": payload,
            "canonicalPayload": jcs(payload),
            "hash": root,
            "certificate": issued,
        },
        "withhold": withhold_cases,
        "tampered": tampered_cases,
    }


CERT_ID = "did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b"
ISSUER = "did:user:auth0%7C4242"
FILE_HASH = hashlib.sha256(b"hello").hexdigest()

DIPLOMA = {
    "certID": CERT_ID,
    "data": {
        "name": "Diploma of Engineering",
        "description": "Awarded with honours",
        "type": "content",
        "issuer": ISSUER,
        "issuerOrigin": "https://certs.example.edu",
        "issuedOn": 1767225600000,
        "expires": 1924992000000,
        "content": {
            "student": {"name": "Ada Lovelace", "dateOfBirth": "1815-12-10"},
            "grade": 4.5,
            "rank": 0,
            "honours": False,
            "remark": "",
            "supervisor": None,
            "courses": [
                {"code": "MA101", "credits": 6},
                {"code": "CS201", "credits": 9007199254740991},
                [1, -2.5, "été 🌞"],
            ],
            "notes": {},
            "awards": [],
            "a.b": "a member name with a dot",
        },
    },
}

PHOTO = {
    "certID": "did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7c",
    "data": {
        "name": "Site photo",
        "description": "",
        "type": "file",
        "issuer": ISSUER,
        "issuedOn": 1767225600001,
        "fileHash": FILE_HASH,
        "content": {
            "file": {"name": "site.jpg", "mediaType": "image/jpeg", "size": 5},
            "location": {"lat": 48.8584, "lon": 2.2945},
        },
    },
}

PAGE = {
    "certID": "did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7d",
    "data": {
        "name": "Terms of service",
        "description": "As published",
        "type": "url",
        "issuer": ISSUER,
        "issuedOn": 1767225600002,
        "fileHash": FILE_HASH,
        "content": {
            "url": "https://example.com/terms",
            "mediaType": "text/html",
            "size": 5,
            "fetchedAt": 1767225599000,
        },
    },
}

SHIPMENT = {
    "certID": "did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7e",
    "data": {
        "name": "Shipment 42",
        "description": "Custody from dock to store",
        "type": "asset",
        "issuer": ISSUER,
        "issuedOn": 1767225600003,
        "content": {"assetId": "pallet-42", "from": 1767225000, "to": 1767225600, "content": {"temperatureMax": 4}},
    },
}

EMPTY = {
    "certID": "did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7f",
    "data": {
        "name": "Nothing but the fields",
        "description": "An empty content",
        "type": "content",
        "issuer": ISSUER,
        "issuedOn": 1767225600004,
        "content": {},
    },
}

# Issued by an account that proved a domain (a DNS TXT record naming the origin and the account):
# the domain is a shown field like the others, and a certificate without one keeps its hash.
PROVEN = {
    "certID": "did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a80",
    "data": {
        "name": "Diploma of Engineering",
        "description": "Issued by a proven domain",
        "type": "content",
        "issuer": ISSUER,
        "issuerOrigin": "https://certs.example.edu",
        "issuerDomain": "university.example",
        "issuedOn": 1767225600005,
        "content": {"student": "Ada Lovelace", "grade": 4.5},
    },
}

TAMPERED = [
    ("renamed", "name", "Diploma of Medicine"),
    ("re-described", "description", "Awarded"),
    ("re-issued by another account", "issuer", "did:user:auth0%7C4343"),
    ("re-dated", "issuedOn", 1767225600001),
]


def build() -> dict:
    _v1.check_jcs_against_rfc()
    return {
        "description": (
            "Certificate hash version 2 (packages/verifier/README.md, 'Certificate hash, version 2'). "
            "Salts are fixed here for reproducibility; real ones are 128 random bits. Paths are arrays "
            "of segments; array indices are positions as issued. Generated by "
            "test/vectors/generate-disclosure-v2.py."
        ),
        "rule": {"version": 2, "domain": DOMAIN, "sdAlg": SD_ALG},
        "vectors": [
            make_vector(
                "content certificate: nested object, arrays (of objects, of arrays), 0, false, \"\", null, "
                "{} and [], 2^53 - 1, non-ASCII text, a member name with a dot",
                DIPLOMA,
                [],
                [
                    ("a member", [["content", "grade"]]),
                    ("a nested member", [["content", "student", "dateOfBirth"]]),
                    ("a whole nested object, with what is under it", [["content", "student"]]),
                    ("an array element, and a member of another element", [["content", "courses", 1], ["content", "courses", 0, "credits"]]),
                    ("falsy values", [["content", "rank"], ["content", "honours"], ["content", "remark"], ["content", "supervisor"]]),
                ],
                TAMPERED + [("expiry removed", "expires", None)],
            ),
            make_vector(
                "file certificate: the file's hash in clear, the file's name and media type kept in clear by the issuer",
                PHOTO,
                [["content", "file"]],
                [("the location", [["content", "location"]])],
                [("another file", "fileHash", hashlib.sha256(b"world").hexdigest())],
            ),
            make_vector("URL certificate: the bytes' hash in clear", PAGE, [], [("when it was fetched", [["content", "fetchedAt"]])], []),
            make_vector("asset certificate", SHIPMENT, [], [("the nested content", [["content", "content"]])], []),
            make_vector("content certificate with an empty content", EMPTY, [], [], [("renamed", "name", "Something")]),
            make_vector(
                "content certificate naming the domain its issuer proved (issuerDomain)",
                PROVEN,
                [],
                [("a member", [["content", "grade"]])],
                [("claiming another domain", "issuerDomain", "other-university.example"), ("domain removed", "issuerDomain", None)],
            ),
        ],
    }


def main() -> int:
    options = _v1.vector_options(OUTPUT)
    text = _v1.prettier(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", OUTPUT.name)
    return _v1.write_vectors(text, OUTPUT, options, "python3 test/vectors/generate-disclosure-v2.py")


if __name__ == "__main__":
    sys.exit(main())

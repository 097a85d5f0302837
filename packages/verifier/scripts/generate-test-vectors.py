#!/usr/bin/env python3
"""Writes test-vectors.json: inputs and expected outputs for every Trustpoint hashing and
on-chain encoding rule.

Expected values are derived independently of the TypeScript code under test:
  * SHA-256 with Python's hashlib, cross-checked with the `sha256sum` and `openssl` command-line
    tools and with published values (NIST FIPS 180-2 examples, the well-known double SHA-256 of
    "hello");
  * canonical JSON (RFC 8785) with the small reference implementation below, which must first
    reproduce the RFC's own published examples (sections 3.2.2 and 3.2.3, Appendix B);
  * Keccak-256 with the `keccak256` primitive of the ethers library (scripts/keccak256.mjs),
    checked against keccak256("") and the two error selectors published in the spec; the key
    packing and the ABI encoding are written out by hand here, not taken from ethers.

Python's standard library only (with the `sha256sum`, `openssl` and `node` commands it runs).
test/vector-generators.test.ts runs it, and the two generators under test/vectors, in `npm test`
and CI, and fails when what they write differs from the committed files.

Usage (python3 >= 3.9, from packages/verifier):
  python3 scripts/generate-test-vectors.py                 # rewrite test-vectors.json
  python3 scripts/generate-test-vectors.py --check         # fail if the file is out of date
  python3 scripts/generate-test-vectors.py --output PATH   # write them elsewhere
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent
OUTPUT = PACKAGE_DIR / "test-vectors.json"


# --------------------------------------------------------------------------- SHA-256


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def double_hash(data: bytes) -> str:
    return hashlib.sha256(hashlib.sha256(data).digest()).hexdigest()


def _run(args: list[str], data: bytes) -> bytes:
    return subprocess.run(args, input=data, capture_output=True, check=True).stdout


def cross_check_sha256(data: bytes) -> None:
    """Both command-line tools must agree with hashlib, including the double hash."""
    expected = sha256(data)
    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(data)
        path = handle.name
    try:
        by_sha256sum = _run(["sha256sum", path], b"").split()[0].decode()
    finally:
        os.unlink(path)
    inner = _run(["openssl", "dgst", "-sha256", "-binary"], data)
    by_openssl = inner.hex()
    outer = _run(["openssl", "dgst", "-sha256", "-binary"], inner).hex()
    assert by_sha256sum == expected, ("sha256sum disagrees", data[:32])
    assert by_openssl == expected, ("openssl disagrees", data[:32])
    assert outer == double_hash(data), ("openssl double hash disagrees", data[:32])


# Published values: NIST FIPS 180-2 examples, and SHA256d("hello") as used in Bitcoin tutorials.
PUBLISHED_SHA256 = {
    b"": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    b"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq": (
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    b"a" * 1_000_000: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
}
PUBLISHED_DOUBLE_HASH = {
    b"hello": "9595c9df90075148eb06860365df33584b75bff782a510c6cd4883a419833d50",
}


# --------------------------------------------------------------------------- Byte inputs
# Vectors describe bytes as {"utf8": text}, {"hex": hex} or {"repeat": {<utf8|hex>, "count"}}
# so that large inputs stay small in the file.


def utf8_input(text: str) -> dict:
    return {"utf8": text}


def hex_input(data: bytes) -> dict:
    return {"hex": data.hex()}


def repeat_input(unit: dict, count: int) -> dict:
    return {"repeat": {**unit, "count": count}}


def input_bytes(descriptor: dict) -> bytes:
    if "utf8" in descriptor:
        return descriptor["utf8"].encode("utf-8")
    if "hex" in descriptor:
        return bytes.fromhex(descriptor["hex"])
    repeat = descriptor["repeat"]
    unit = {key: value for key, value in repeat.items() if key != "count"}
    return input_bytes(unit) * repeat["count"]


# --------------------------------------------------------------------------- RFC 8785 (JCS)


def es_number(value: float) -> str:
    """ECMAScript Number::toString for a finite double (RFC 8785 section 3.2.2.3)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError("no JSON representation")
    if value == 0:
        return "0"  # also minus zero
    if value < 0:
        return "-" + es_number(-value)
    # repr() gives the shortest digit string that round-trips, correctly rounded, like ECMAScript.
    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    assert sign == 0 and isinstance(exponent, int)
    raw = "".join(map(str, digit_tuple))  # no leading zeros for a non-zero value
    n = len(raw) + exponent  # value = 0.raw * 10^n
    digits = raw.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def es_string(text: str) -> str:
    """JSON.stringify string form (RFC 8785 section 3.2.2.2)."""
    out = ['"']
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def utf16_units(text: str) -> bytes:
    # Big-endian UTF-16 bytes compare like the code-unit sequence RFC 8785 section 3.2.3 sorts by.
    return text.encode("utf-16-be")


def jcs(value) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return es_number(float(value))  # JSON numbers are IEEE-754 doubles
    if isinstance(value, str):
        return es_string(value)
    if isinstance(value, list):
        return "[" + ",".join(jcs(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=utf16_units)
        return "{" + ",".join(es_string(key) + ":" + jcs(value[key]) for key in keys) + "}"
    raise TypeError(type(value))


def jcs_bytes(value) -> bytes:
    return jcs(value).encode("utf-8")


# RFC 8785 section 3.2.2 (input as printed, and the published canonical output).
RFC_MAIN_INPUT = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC_MAIN_OUTPUT = (
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
    '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
)

# RFC 8785 section 3.2.3 (sorting by UTF-16 code units).
RFC_SORTING_INPUT = r"""{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"""
RFC_SORTING_OUTPUT = (
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control",'
    '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
    '"\U0001F600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
)

# RFC 8785 Appendix B: IEEE-754 bit patterns and their JSON text (None: no JSON form).
RFC_NUMBERS = [
    ("0000000000000000", "0", "zero"),
    ("8000000000000000", "0", "minus zero"),
    ("0000000000000001", "5e-324", "min pos number"),
    ("8000000000000001", "-5e-324", "min neg number"),
    ("7fefffffffffffff", "1.7976931348623157e+308", "max pos number"),
    ("ffefffffffffffff", "-1.7976931348623157e+308", "max neg number"),
    ("4340000000000000", "9007199254740992", "max pos int"),
    ("c340000000000000", "-9007199254740992", "max neg int"),
    ("4430000000000000", "295147905179352830000", "~2**68"),
    ("7fffffffffffffff", None, "NaN"),
    ("7ff0000000000000", None, "Infinity"),
    ("44b52d02c7e14af5", "9.999999999999997e+22", ""),
    ("44b52d02c7e14af6", "1e+23", ""),
    ("44b52d02c7e14af7", "1.0000000000000001e+23", ""),
    ("444b1ae4d6e2ef4e", "999999999999999700000", ""),
    ("444b1ae4d6e2ef4f", "999999999999999900000", ""),
    ("444b1ae4d6e2ef50", "1e+21", ""),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7", ""),
    ("3eb0c6f7a0b5ed8d", "0.000001", ""),
    ("41b3de4355555553", "333333333.3333332", ""),
    ("41b3de4355555554", "333333333.33333325", ""),
    ("41b3de4355555555", "333333333.3333333", ""),
    ("41b3de4355555556", "333333333.3333334", ""),
    ("41b3de4355555557", "333333333.33333343", ""),
    ("becbf647612f3696", "-0.0000033333333333333333", ""),
    ("43143ff3c1cb0959", "1424953923781206.2", "round to even"),
]


def double_from_hex(bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(bits))[0]


def check_jcs_against_rfc() -> None:
    assert jcs(json.loads(RFC_MAIN_INPUT)) == RFC_MAIN_OUTPUT
    assert jcs(json.loads(RFC_SORTING_INPUT)) == RFC_SORTING_OUTPUT
    for bits, expected, _ in RFC_NUMBERS:
        value = double_from_hex(bits)
        if expected is None:
            assert math.isnan(value) or math.isinf(value)
        else:
            assert es_number(value) == expected, (bits, es_number(value), expected)


# --------------------------------------------------------------------------- Keccak-256 and ABI


def keccak256_many(chunks: list[bytes]) -> list[bytes]:
    script = PACKAGE_DIR / "scripts" / "keccak256.mjs"
    out = subprocess.run(
        ["node", str(script), *("0x" + chunk.hex() for chunk in chunks)],
        capture_output=True,
        check=True,
        cwd=PACKAGE_DIR,
        text=True,
    ).stdout.split()
    assert len(out) == len(chunks)
    return [bytes.fromhex(line[2:]) for line in out]


def keccak256(data: bytes) -> bytes:
    return keccak256_many([data])[0]


def check_keccak() -> None:
    empty, trust_point_error, evidence_error = keccak256_many(
        [b"", b"TrustPointNotFound_6Gr6z8()", b"EvidenceNotFound_7QF74()"]
    )
    assert empty.hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert trust_point_error[:4].hex() == "16fd89cc"  # published in the spec
    assert evidence_error[:4].hex() == "09cea733"


def selector(signature: str) -> bytes:
    return keccak256(signature.encode("ascii"))[:4]


def word(number: int) -> bytes:
    return number.to_bytes(32, "big")


def abi_string_tail(text: str) -> bytes:
    data = text.encode("utf-8")
    padding = (32 - len(data) % 32) % 32
    return word(len(data)) + data + b"\0" * padding


def abi_encode_string_uint(text: str, number: int) -> bytes:
    """ABI encoding of (string, uint256): head = [offset of the string, number], then the string."""
    return word(64) + word(number) + abi_string_tail(text)


def abi_encode_string(text: str) -> bytes:
    return word(32) + abi_string_tail(text)


def packed_key_preimage(identifier: str, timestamp: int) -> bytes:
    """abi.encodePacked(string, uint256): raw UTF-8 bytes, then a 32-byte big-endian word."""
    return identifier.encode("utf-8") + word(timestamp)


def hex0x(data: bytes) -> str:
    return "0x" + data.hex()


# --------------------------------------------------------------------------- Vectors

CERT_ID = "did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12"
OTHER_CERT_ID = "did:acme:certid:01950a7b-1c00-7000-8000-000000000001"
TIMESTAMP_MS = 1767225600123  # 2026-01-01T00:00:00.123Z
TIMESTAMP_S = 1767225600
CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
USER = "did:user:auth0%7C5f7c8ec7c33c6c004bbafe82"


def sha256_vectors() -> tuple[list, list]:
    inputs = [
        ("empty input (FIPS 180-2)", utf8_input("")),
        ('"abc" (FIPS 180-2)', utf8_input("abc")),
        ("448-bit message (FIPS 180-2)", utf8_input("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
        ("one million 'a' (FIPS 180-2)", repeat_input(utf8_input("a"), 1_000_000)),
        ('"hello"', utf8_input("hello")),
        ("non-ASCII text is hashed as UTF-8", utf8_input("Grüße, 世界 😀")),
        ("binary bytes 00..ff", hex_input(bytes(range(256)))),
    ]
    sha, double = [], []
    for description, descriptor in inputs:
        data = input_bytes(descriptor)
        cross_check_sha256(data)
        if data in PUBLISHED_SHA256:
            assert sha256(data) == PUBLISHED_SHA256[data]
        if data in PUBLISHED_DOUBLE_HASH:
            assert double_hash(data) == PUBLISHED_DOUBLE_HASH[data]
        inner = hashlib.sha256(data).digest()
        sha.append({"description": description, "input": descriptor, "expected": sha256(data)})
        double.append(
            {
                "description": description,
                "input": descriptor,
                "innerDigestHex": inner.hex(),
                "expected": double_hash(data),
            }
        )
    return sha, double


def canonical_json_vectors() -> dict:
    check_jcs_against_rfc()
    own = [
        ("RFC 8785 section 3.2.2: numbers, string escapes and literals", RFC_MAIN_INPUT, RFC_MAIN_OUTPUT),
        ("RFC 8785 section 3.2.3: keys sorted by UTF-16 code units, non-ASCII keys", RFC_SORTING_INPUT, RFC_SORTING_OUTPUT),
        ("nested objects are sorted at every level, arrays keep their order", '{"b":[3,{"z":1,"a":2}],"a":{"d":null,"c":true}}', None),
        ("whitespace between tokens is removed", ' { "a" : [ 1 , 2 ] ,\n\t"b" : "x y" } ', None),
        ("uppercase sorts before lowercase, a prefix before its extensions", '{"b":1,"a":2,"aa":3,"B":4,"":5}', None),
        ("astral characters sort by their surrogates, before U+E000", '{"\\ue000":1,"\\ud83d\\ude00":2}', None),
        ("control characters use lowercase \\u escapes, / and U+2028 stay literal", '["\\u001f\\u007f/\\u2028"]', None),
        ("integers and exponents in ECMAScript form", '[1E21, 1e20, 1e-7, 0.000001, -0, 100, 1.5e300, 123456789012345678901]', None),
        ("an empty object and an empty array", '{"a":{},"b":[]}', None),
        ("a top-level string", '"text"', None),
        ("a top-level number", "42.10", None),
        ("top-level null", "null", None),
    ]
    values = []
    for description, text, published in own:
        expected = jcs(json.loads(text))
        if published is not None:
            assert expected == published
        values.append(
            {
                "description": description,
                "inputJsonText": text,
                "expected": expected,
                "expectedUtf8Hex": expected.encode("utf-8").hex(),
                "expectedSha256": sha256(expected.encode("utf-8")),
            }
        )
    numbers = []
    for bits, expected, comment in RFC_NUMBERS:
        label = f"RFC 8785 Appendix B: {bits}" + (f" ({comment})" if comment else "")
        entry = {"description": label, "ieee754Hex": bits}
        entry.update({"expected": expected} if expected is not None else {"rejected": True})
        numbers.append(entry)
    return {"values": values, "numbers": numbers}


def certificate_hash_vectors() -> list:
    vectors = []
    for description, descriptor in [
        ("file: empty file", utf8_input("")),
        ("file: small text file", utf8_input("Trustpoint test file\n")),
        ("file: binary file", hex_input(bytes(range(256)) * 4)),
        ("file: 3 MiB made of a repeated 1 KiB block", repeat_input(hex_input(bytes(range(256)) * 4), 3072)),
    ]:
        data = input_bytes(descriptor)
        cross_check_sha256(data)
        vectors.append(
            {
                "description": description,
                "type": "file",
                "input": {"file": descriptor},
                "expected": {"hash": double_hash(data), "fileHash": sha256(data), "size": len(data)},
            }
        )

    for description, content in [
        ("content: flat object", {"title": "Diploma", "student": "Ada Lovelace", "year": 2026}),
        ("content: nested object, unsorted keys, non-ASCII", {"z": [1, 2.5, {"é": True}], "a": {"b": None, "A": "Ünïcödé"}}),
        ("content: empty object", {}),
    ]:
        canonical = jcs(content)
        vectors.append(
            {
                "description": description,
                "type": "content",
                "input": {"content": content},
                "canonical": canonical,
                "expected": {"hash": double_hash(canonical.encode("utf-8"))},
            }
        )

    for description, members in [
        ("asset: every member present", {"assetId": "pallet-0042", "from": "Valencia", "to": "Rotterdam", "content": {"weightKg": 812, "sealed": True}}),
        ("asset: from and to absent are omitted, not null", {"assetId": "pallet-0042", "content": {"weightKg": 812}}),
        ("asset: numeric bounds (timestamps)", {"assetId": "sensor-7", "from": 1767225600000, "to": 1769904000000}),
        ("asset: only the assetId", {"assetId": "sensor-7"}),
    ]:
        canonical = jcs(members)
        vectors.append(
            {
                "description": description,
                "type": "asset",
                "input": members,
                "canonical": canonical,
                "expected": {"hash": double_hash(canonical.encode("utf-8"))},
            }
        )

    for description, descriptor in [
        ("url: bytes received from the URL", utf8_input("<!doctype html><title>Terms v3</title>\n")),
        ("url: empty response body", utf8_input("")),
    ]:
        data = input_bytes(descriptor)
        vectors.append(
            {
                "description": description,
                "type": "url",
                "input": {"bytesReceived": descriptor},
                "expected": {"hash": double_hash(data)},
            }
        )
    return vectors


def trust_point_hash_vectors() -> list:
    certificate_hash = double_hash(b"Trustpoint test file\n")
    signature = bytes.fromhex(
        "3045022100c0ffee00000000000000000000000000000000000000000000000000000000010220"
        "0badc0de00000000000000000000000000000000000000000000000000000000"
    )
    vectors = [
        {
            "description": "Evidence: the certificate hash itself",
            "type": "Evidence",
            "input": {"certificateHash": certificate_hash},
            "expected": certificate_hash,
        }
    ]
    for description, cert_id in [
        ("Revocation: double hash of the revocation sentence", CERT_ID),
        ("Revocation: another namespace", OTHER_CERT_ID),
    ]:
        sentence = f"Certificate {cert_id} has been revoked"
        vectors.append(
            {
                "description": description,
                "type": "Revocation",
                "input": {"certId": cert_id},
                "sentence": sentence,
                "expected": double_hash(sentence.encode("utf-8")),
            }
        )
    vectors.append(
        {
            "description": "Signature: double hash of the signature bytes",
            "type": "Signature",
            "input": {"signature": hex_input(signature)},
            "expected": double_hash(signature),
        }
    )
    return vectors


def asset_hash_vectors() -> list:
    vectors = []
    for description, members in [
        ("listing-style data with id and version", {"assetId": "pallet-0042", "data": {"id": "P-42", "version": "1"}}),
        ("nested data, unsorted keys, non-ASCII", {"assetId": "lot/2026-α", "data": {"origin": {"country": "ES", "site": "Almería"}, "batch": [3, 1, 2]}}),
        ("empty data", {"assetId": "x", "data": {}}),
    ]:
        canonical = jcs(members)
        vectors.append(
            {
                "description": description,
                "input": members,
                "canonical": canonical,
                "expected": double_hash(canonical.encode("utf-8")),
            }
        )
    return vectors


def evidence_hash_vectors() -> list:
    vectors = []
    for description, members in [
        ("flat metadata", {"metadata": {"event": "shipped", "carrier": "ACME"}, "timestamp": TIMESTAMP_S, "userOwner": USER}),
        ("nested metadata", {"metadata": {"reading": {"tempC": -18.5, "ok": True}, "tags": ["cold", "chain"]}, "timestamp": TIMESTAMP_S + 1, "userOwner": "did:user:42"}),
    ]:
        canonical = jcs(members)
        vectors.append(
            {
                "description": description,
                "input": members,
                "canonical": canonical,
                "expected": double_hash(canonical.encode("utf-8")),
            }
        )
    return vectors


def record_key_vectors() -> list:
    asset = double_hash(jcs_bytes({"assetId": "pallet-0042", "data": {"id": "P-42", "version": "1"}}))
    cases = [
        ("trustpoint key: certID and timestamp in milliseconds", "trustPoint", CERT_ID, TIMESTAMP_MS),
        ("trustpoint key: timestamp zero", "trustPoint", CERT_ID, 0),
        ("trustpoint key: another certID, same timestamp", "trustPoint", OTHER_CERT_ID, TIMESTAMP_MS),
        ("evidence key: assetHash text and timestamp in seconds", "evidence", asset, TIMESTAMP_S),
        ("evidence key: the next second is another key", "evidence", asset, TIMESTAMP_S + 1),
    ]
    preimages = [packed_key_preimage(identifier, timestamp) for _, _, identifier, timestamp in cases]
    keys = keccak256_many(preimages)
    return [
        {
            "description": description,
            "kind": kind,
            "input": {"id": identifier, "timestamp": timestamp},
            "packedHex": preimage.hex(),
            "expected": hex0x(key),
        }
        for (description, kind, identifier, timestamp), preimage, key in zip(cases, preimages, keys)
    ]


def call_data_vectors() -> list:
    asset = double_hash(jcs_bytes({"assetId": "pallet-0042", "data": {"id": "P-42", "version": "1"}}))
    get_trust_point = selector("getTrustPoint(string,uint256)")
    get_evidence = selector("getEvidence(string,uint256)")
    return [
        {
            "description": "getTrustPoint(certId, timestamp in ms)",
            "function": "getTrustPoint",
            "input": {"certId": CERT_ID, "timestamp": TIMESTAMP_MS},
            "selector": hex0x(get_trust_point),
            "expected": hex0x(get_trust_point + abi_encode_string_uint(CERT_ID, TIMESTAMP_MS)),
        },
        {
            "description": "getTrustPoint with a certID of exactly one 64-byte tail",
            "function": "getTrustPoint",
            "input": {"certId": OTHER_CERT_ID, "timestamp": 1},
            "selector": hex0x(get_trust_point),
            "expected": hex0x(get_trust_point + abi_encode_string_uint(OTHER_CERT_ID, 1)),
        },
        {
            "description": "getEvidence(assetHash, timestamp in s)",
            "function": "getEvidence",
            "input": {"assetHash": asset, "timestamp": TIMESTAMP_S},
            "selector": hex0x(get_evidence),
            "expected": hex0x(get_evidence + abi_encode_string_uint(asset, TIMESTAMP_S)),
        },
    ]


def eth_call_request_vectors() -> list:
    get_trust_point = selector("getTrustPoint(string,uint256)")
    return [
        {
            "description": "full JSON-RPC body for a trustpoint verification",
            "function": "getTrustPoint",
            "input": {"smartContract": CONTRACT, "certId": CERT_ID, "timestamp": TIMESTAMP_MS, "id": 7},
            "expected": {
                "jsonrpc": "2.0",
                "method": "eth_call",
                "params": [
                    {"to": CONTRACT, "data": hex0x(get_trust_point + abi_encode_string_uint(CERT_ID, TIMESTAMP_MS))},
                    "latest",
                ],
                "id": 7,
            },
        }
    ]


def eth_call_response_vectors() -> list:
    trust_point_hash = double_hash(f"Certificate {CERT_ID} has been revoked".encode("utf-8"))
    evidence = double_hash(jcs_bytes({"metadata": {"event": "shipped"}, "timestamp": TIMESTAMP_S, "userOwner": USER}))

    def ok(result: bytes) -> dict:
        return {"jsonrpc": "2.0", "id": 1, "result": hex0x(result)}

    def reverted(data) -> dict:
        return {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "execution reverted", "data": data}}

    def abi_string_uint8(text: str, code: int) -> bytes:
        return word(64) + word(code) + abi_string_tail(text)

    unexpected = {"unexpected": True}
    return [
        {
            "description": "getTrustPoint found: a Revocation trustpoint",
            "function": "getTrustPoint",
            "response": ok(abi_string_uint8(trust_point_hash, 1)),
            "expected": {"found": True, "hash": trust_point_hash, "type": "Revocation"},
        },
        {
            "description": "getTrustPoint found: an Evidence trustpoint",
            "function": "getTrustPoint",
            "response": ok(abi_string_uint8(evidence, 0)),
            "expected": {"found": True, "hash": evidence, "type": "Evidence"},
        },
        {
            "description": "getTrustPoint not found: revert data 0x16fd89cc in error.data",
            "function": "getTrustPoint",
            "response": reverted("0x16fd89cc"),
            "expected": {"found": False},
        },
        {
            "description": "getTrustPoint not found: revert data nested in error.data.data (Hardhat style)",
            "function": "getTrustPoint",
            "response": reverted({"message": "reverted with custom error", "data": "0x16fd89cc"}),
            "expected": {"found": False},
        },
        {
            "description": "getEvidence found",
            "function": "getEvidence",
            "response": ok(abi_encode_string(evidence)),
            "expected": {"found": True, "hash": evidence},
        },
        {
            "description": "getEvidence not found: revert data 0x09cea733",
            "function": "getEvidence",
            "response": reverted("0x09cea733"),
            "expected": {"found": False},
        },
        {
            "description": "getEvidence not found: nested revert data",
            "function": "getEvidence",
            "response": reverted({"data": "0x09CEA733"}),
            "expected": {"found": False},
        },
        {
            "description": "unexpected: the evidence selector in reply to getTrustPoint",
            "function": "getTrustPoint",
            "response": reverted("0x09cea733"),
            "expected": unexpected,
        },
        {
            "description": "unexpected: another revert (Error(string))",
            "function": "getEvidence",
            "response": reverted(hex0x(selector("Error(string)") + abi_encode_string("paused"))),
            "expected": unexpected,
        },
        {
            "description": "unexpected: empty result (no contract at the address)",
            "function": "getTrustPoint",
            "response": {"jsonrpc": "2.0", "id": 1, "result": "0x"},
            "expected": unexpected,
        },
        {
            "description": "unexpected: node error without revert data",
            "function": "getEvidence",
            "response": {"jsonrpc": "2.0", "id": 1, "error": {"code": -32005, "message": "rate limited"}},
            "expected": unexpected,
        },
        {
            "description": "unexpected: type code outside the enum",
            "function": "getTrustPoint",
            "response": ok(abi_string_uint8(trust_point_hash, 3)),
            "expected": unexpected,
        },
        {
            "description": "unexpected: not a JSON-RPC response",
            "function": "getEvidence",
            "response": {"status": "ok"},
            "expected": unexpected,
        },
    ]


def build() -> dict:
    check_keccak()
    sha, double = sha256_vectors()
    return {
        "about": (
            "Trustpoint test vectors: inputs and expected outputs of every hashing and on-chain "
            "encoding rule of @trustpoint/verifier. Generated by scripts/generate-test-vectors.py "
            "from independent implementations (hashlib, sha256sum, openssl, a reference RFC 8785 "
            "checked against the RFC's examples, hand-written ABI encoding). See README.md."
        ),
        "version": 1,
        "conventions": {
            "hash": "SHA-256 as 64 lowercase hex characters, no 0x",
            "bytes": 'byte inputs are {"utf8": text}, {"hex": hex} or {"repeat": {"utf8"|"hex": unit, "count": n}}',
            "bytes32": "keys and on-chain words are 0x-prefixed lowercase hex",
            "timestamps": "trustpoint timestamps in milliseconds, evidence timestamps in seconds",
            "unexpected": '{"unexpected": true} means the reply must be reported as unexpected, never as not found',
        },
        "sha256": sha,
        "doubleHash": double,
        "canonicalJson": canonical_json_vectors(),
        "certificateHash": certificate_hash_vectors(),
        "trustPointHash": trust_point_hash_vectors(),
        "assetHash": asset_hash_vectors(),
        "evidenceHash": evidence_hash_vectors(),
        "recordKey": record_key_vectors(),
        "callData": call_data_vectors(),
        "ethCallRequest": eth_call_request_vectors(),
        "ethCallResponse": eth_call_response_vectors(),
    }


def prettier(text: str, file_name: str) -> str:
    """Formats like the repository's Prettier, so `prettier --check` and `--check` here agree."""
    return subprocess.run(
        ["npx", "--no-install", "prettier", "--stdin-filepath", file_name],
        input=text,
        capture_output=True,
        check=True,
        cwd=PACKAGE_DIR,
        text=True,
    ).stdout


def vector_options(committed: Path) -> argparse.Namespace:
    """The options every generator takes: --check, or --output PATH instead of the committed file."""
    parser = argparse.ArgumentParser(description=f"Writes {committed.name}.")
    parser.add_argument(
        "--check", action="store_true", help=f"fail if {committed.name} is out of date; write nothing"
    )
    parser.add_argument(
        "--output", type=Path, default=committed, help=f"where to write (default: {committed})"
    )
    return parser.parse_args()


def write_vectors(text: str, committed: Path, options: argparse.Namespace, command: str) -> int:
    if options.check:
        if committed.read_text(encoding="utf-8") != text:
            print(f"{committed.name} is out of date: run {command}", file=sys.stderr)
            return 1
        print(f"{committed.name} is up to date")
        return 0
    options.output.write_text(text, encoding="utf-8")
    print(f"wrote {options.output}")
    return 0


def main() -> int:
    options = vector_options(OUTPUT)
    text = prettier(json.dumps(build(), indent=2, ensure_ascii=True) + "\n", OUTPUT.name)
    return write_vectors(text, OUTPUT, options, "python3 scripts/generate-test-vectors.py")


if __name__ == "__main__":
    sys.exit(main())

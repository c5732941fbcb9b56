#!/usr/bin/env python3
"""Writes the seed corpus of fuzz.sh (corpus/TARGET/NAME): answers, channel frames and names as the daemon and
OpenSM give them, over the fuzz targets' subnet (fuzz_common.c: three switches, LIDs 0..12, subnet 1). Each file's
first byte is how the target cuts the rest into reads. Run from the plug-in's directory: python3 fuzz/make_seeds.py"""
import os
import struct

MAGIC, VERSION = 0x464D4F53, 4
TABLES, REFUSED, REROUTE, DELTA, SUBNET_LMC = 2, 3, 6, 9, 10
GUIDS = [0x0002C90300001111, 0x0002C90300002222, 0x0002C90300003333]
PORTS = [5, 9, 37]
ENTRIES, SEQ = 13, 1


def frame(kind, payload, length=None):
    return struct.pack(">IBBHI", MAGIC, VERSION, kind, 0, len(payload) if length is None else length) + payload


def tables(answer, rows):
    body = struct.pack(">QQIH", SEQ, answer, len(GUIDS), ENTRIES)
    for guid, row in zip(GUIDS, rows):
        body += struct.pack(">Q", guid) + bytes(row)
    return frame(TABLES, body)


def delta(answer, base, changes):
    body = struct.pack(">QQQIHI", SEQ, answer, base, len(GUIDS), ENTRIES, len(changes))
    for guid, entries in changes:
        body += struct.pack(">QH", guid, len(entries))
        for lid, port in entries:
            body += struct.pack(">HB", lid, port)
    return frame(DELTA, body)


def refused(seq, code, reason):
    return frame(REFUSED, struct.pack(">QH", seq, code) + reason.encode())


ROWS = [[(lid % (ports - 1)) + 1 if lid else 255 for lid in range(ENTRIES)] for ports in PORTS]
SEEDS = {
    "answer": {
        "tables": b"\x01" + tables(7, ROWS),
        "tables-then-delta": b"\x02" + tables(7, ROWS) + delta(8, 7, [(GUIDS[2], [(3, 36), (12, 255)])]),
        "delta-without-tables": b"\x03" + delta(8, 7, [(GUIDS[0], [(1, 2)])]),
        "refused-moving": b"\x04" + refused(SEQ, 1, "this manager is a standby; leadership is moving here from n1"),
        "refused-not-ready": b"\x05" + refused(SEQ, 2, "no tables within 60 s"),
        "refused-invalid": b"\x06" + refused(SEQ, 3, "a name that is not UTF-8: \u00e9\u4ea4"),
        "refused-too-large": b"\x07" + refused(0, 4, "frame of 5000000 bytes, above the limit of 1048576"),
        "refused-unknown-code": b"\x08" + refused(SEQ, 77, "a later release's code"),
        "huge": b"\x09" + frame(TABLES, b"", 0x7FFFFFFF),
        "not-the-protocol": b"\x0a" + b"HTTP/1.1 200 OK\r\n\r\nnot tables",
        # a daemon of an earlier release refusing a SUBNET_LMC (LMC > 0) as an unknown type; and that type as an answer
        "refused-unknown-type": b"\x0b" + refused(0, 3, "unexpected frame type 10"),
        "subnet-lmc-as-answer": b"\x0c" + frame(SUBNET_LMC, struct.pack(">QQII", SEQ, 0, 0, 0)),
    },
    "channel": {
        "reroute": b"\x01" + frame(REROUTE, struct.pack(">Q", 42)),
        "reroutes": b"\x02" + frame(REROUTE, struct.pack(">Q", 1)) + frame(REROUTE, struct.pack(">Q", 2)),
        "refused": b"\x03" + refused(0, 3, "channel frame of 30 bytes"),
        "reroute-then-refused": b"\x04" + frame(REROUTE, struct.pack(">Q", 3)) + refused(0, 4, "too large"),
    },
    "name": {
        "ascii": b"s1-0_1000000100000000",
        "cut-inside": ("sw-\u00e9-\u00df-\u4ea4\u6362\u673a-" + "\u00e9" * 24 + "\u4ea4").encode()[:64],
        "seventy": ("sw-\u00e9-\u00df-\u4ea4\u6362\u673a-" + "\u00e9" * 24 + "\u4ea4").encode(),
        "invalid": b"ab\xc3(\xe4\xba\xed\xa0\x80\xf4\x90\x80\x80\xc0\xafz\n",
    },
}

for target, seeds in SEEDS.items():
    os.makedirs(os.path.join("corpus", target), exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join("corpus", target, name), "wb") as f:
            f.write(data)

#!/usr/bin/env python3
"""Sequence-numbered UDP stream through a netlab, for loss measurements (docs/tools/netlab-cut.sh runs it).
send DST_ADDR RATE SECONDS   (run in the source node's namespace)
recv SECONDS OUTFILE TOTAL    (in the destination namespace: writes the gaps; OUTFILE.mark once 1,000 arrived)"""
import socket, struct, sys, time
PORT = 9999
if sys.argv[1] == "send":
    dst, rate, secs = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    period = 1.0 / rate
    t0 = time.monotonic(); seq = 0
    while seq < rate * secs:
        due = t0 + seq * period
        now = time.monotonic()
        if now - t0 > secs: break
        if due > now: time.sleep(due - now)
        s.sendto(struct.pack("!Qd", seq, time.time()), (dst, PORT)); seq += 1
    print("sent", seq)
else:
    secs, out, total = float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", PORT)); s.settimeout(0.5)
    end = time.time() + secs; last = -1; marked = False; lastt = 0.0; got = 0; gaps = []; ooo = 0
    while time.time() < end:
        try: data = s.recv(64)
        except socket.timeout: continue
        now = time.time(); seq, sent = struct.unpack("!Qd", data[:16]); got += 1
        if seq < last: ooo += 1; continue
        if last >= 0 and seq > last + 1:
            gaps.append((seq - last - 1, (now - lastt) * 1000, lastt))
        last, lastt = seq, now
        if seq >= 1000 and not marked:
            open(out + ".mark", "w").close(); marked = True
        if seq == total - 1: break
    with open(out, "w") as f:
        f.write("received %d out_of_order %d last_seq %d\n" % (got, ooo, last))
        for n, ms, t in gaps:
            f.write("gap lost %d window_ms %.1f after %s.%03d\n" % (n, ms, time.strftime("%H:%M:%S", time.gmtime(t)), int(t * 1000) % 1000))

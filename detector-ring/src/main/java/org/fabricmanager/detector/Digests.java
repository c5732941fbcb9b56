package org.fabricmanager.detector;

/** Entry hashes for the order-independent (XOR) view digest carried by heartbeats. */
final class Digests {
    private Digests() {
    }

    /** SplitMix64's finaliser: a cheap, well-mixed 64-bit hash. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static long member(int member, long state) {
        return mix(mix(0x6D656D62L + member) ^ state);
    }

    static long link(int reporter, int port, long incarnation, long sequence, boolean down) {
        long h = mix(0x6C696E6BL + ((long) reporter << 32 | (port & 0xFFFFFFFFL)));
        h = mix(h ^ incarnation);
        h = mix(h ^ sequence);
        return down ? ~h : h;
    }
}

package org.fabricmanager.topology;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Parallel Generalised Fat-Tree shape {@code PGFT(h; m1..mh; w1..wh; p1..ph)} (Zahavi). Level 0
 * is the end nodes, levels 1..h are switches, level 1 the leaves. {@code m_l} is the number of
 * children of a level-l switch, {@code w_l} the number of parents of a level-(l-1) element and
 * {@code p_l} the number of parallel links to each of them. Only {@code w1 = p1 = 1} is supported.
 * All counts are checked to fit an {@code int} and every radix to fit an InfiniBand LFT (254 ports).
 */
public final class PgftSpec {
    /** Largest port number a switch may have: LFT entries are bytes and 255 means "no route". */
    public static final int MAX_RADIX = 254;

    private static final Pattern SHAPE = Pattern.compile(
            "\\s*PGFT\\s*\\(\\s*([^;()]*)\\s*;\\s*([^;()]*)\\s*;\\s*([^;()]*)\\s*;\\s*([^;()]*)\\s*\\)\\s*");

    private final int h;
    private final int[] m;
    private final int[] w;
    private final int[] p;

    private PgftSpec(int h, int[] m, int[] w, int[] p) {
        this.h = h;
        this.m = m;
        this.w = w;
        this.p = p;
    }

    /**
     * Builds a spec from arrays of length {@code h} (index 0 holds level 1).
     *
     * @throws TopologyException for zero arities, {@code w1 != 1}, {@code p1 != 1}, int overflow or a radix over 254
     */
    public static PgftSpec of(int[] m, int[] w, int[] p) {
        int h = m.length;
        if (h < 1) {
            throw new TopologyException("PGFT: h must be at least 1");
        }
        if (w.length != h || p.length != h) {
            throw new TopologyException("PGFT: h=" + h + " but " + m.length + " m, " + w.length + " w and " + p.length
                    + " p values");
        }
        int[] mm = new int[h + 1];
        int[] ww = new int[h + 1];
        int[] pp = new int[h + 1];
        for (int l = 1; l <= h; l++) {
            mm[l] = positive("m" + l, m[l - 1]);
            ww[l] = positive("w" + l, w[l - 1]);
            pp[l] = positive("p" + l, p[l - 1]);
        }
        if (ww[1] != 1) {
            throw new TopologyException("PGFT: w1 must be 1 (one leaf switch per node), got " + ww[1]);
        }
        if (pp[1] != 1) {
            throw new TopologyException("PGFT: p1 must be 1 (one link per node), got " + pp[1]);
        }
        PgftSpec spec = new PgftSpec(h, mm, ww, pp);
        spec.checkCounts();
        return spec;
    }

    private static int positive(String name, int v) {
        if (v <= 0) {
            throw new TopologyException("PGFT: " + name + " must be at least 1, got " + v);
        }
        return v;
    }

    /**
     * Parses {@code PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)}; spaces are optional.
     *
     * @throws TopologyException with a message saying what is wrong with {@code text}
     */
    public static PgftSpec parse(String text) {
        if (text == null) {
            throw new TopologyException("PGFT: empty specification");
        }
        Matcher matcher = SHAPE.matcher(text);
        if (!matcher.matches()) {
            throw new TopologyException("PGFT: malformed '" + text + "': expected PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)");
        }
        int[] hs = numbers(text, "h", matcher.group(1));
        if (hs.length != 1) {
            throw new TopologyException("PGFT: malformed '" + text + "': h must be a single number");
        }
        int h = hs[0];
        if (h < 1) {
            throw new TopologyException("PGFT: h must be at least 1 in '" + text + "'");
        }
        int[] m = numbers(text, "m", matcher.group(2));
        int[] w = numbers(text, "w", matcher.group(3));
        int[] p = numbers(text, "p", matcher.group(4));
        for (Object[] pair : new Object[][] {{"m", m}, {"w", w}, {"p", p}}) {
            int[] values = (int[]) pair[1];
            if (values.length != h) {
                throw new TopologyException("PGFT: '" + text + "' has h=" + h + " but " + values.length + " " + pair[0]
                        + " values");
            }
        }
        return of(m, w, p);
    }

    private static int[] numbers(String text, String what, String list) {
        String[] parts = list.split(",", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            if (part.isEmpty() || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new TopologyException("PGFT: malformed '" + text + "': " + what + " value '" + part
                        + "' is not a non-negative integer");
            }
            try {
                out[i] = Integer.parseInt(part);
            } catch (NumberFormatException e) {
                throw new TopologyException("PGFT: " + what + " value '" + part + "' in '" + text + "' is too large");
            }
        }
        return out;
    }

    private void checkCounts() {
        try {
            nodeCount();
            long links = 0;
            long switches = 0;
            for (int l = 1; l <= h; l++) {
                switches = Math.addExact(switches, switchCount(l));
                links = Math.addExact(links, linkCount(l));
            }
            Math.toIntExact(links);
            Math.toIntExact(switches);
        } catch (ArithmeticException e) {
            throw new TopologyException("PGFT: " + this + " has more nodes, switches or links than fit an int");
        }
        for (int l = 1; l <= h; l++) {
            if (radix(l) > MAX_RADIX) {
                throw new TopologyException("PGFT: " + this + ": level-" + l + " switches need " + radix(l)
                        + " ports, more than " + MAX_RADIX);
            }
        }
    }

    /** Number of switch levels. */
    public int h() {
        return h;
    }

    /** Children of each level-l switch, 1 <= l <= h. */
    public int m(int l) {
        return m[level(l)];
    }

    /** Parents of each level-(l-1) element, 1 <= l <= h. */
    public int w(int l) {
        return w[level(l)];
    }

    /** Parallel links between a level-(l-1) element and each of its parents, 1 <= l <= h. */
    public int p(int l) {
        return p[level(l)];
    }

    private int level(int l) {
        if (l < 1 || l > h) {
            throw new IllegalArgumentException("level " + l + " outside [1, " + h + "] of " + this);
        }
        return l;
    }

    /** {@code M_l = m_1 * ... * m_l}, {@code M_0 = 1}. */
    public int bigM(int l) {
        int r = 1;
        for (int k = 1; k <= l; k++) {
            r = Math.multiplyExact(r, m[k]);
        }
        return r;
    }

    /** {@code W_l = w_2 * ... * w_l}, {@code W_1 = 1} (and {@code W_0 = 1}). */
    public int bigW(int l) {
        int r = 1;
        for (int k = 2; k <= l; k++) {
            r = Math.multiplyExact(r, w[k]);
        }
        return r;
    }

    /** {@code m_1 * ... * m_h}. */
    public int nodeCount() {
        return bigM(h);
    }

    /** {@code (m_{l+1} * ... * m_h) * (w_1 * ... * w_l)} for 1 <= l <= h. */
    public int switchCount(int l) {
        level(l);
        int r = 1;
        for (int k = l + 1; k <= h; k++) {
            r = Math.multiplyExact(r, m[k]);
        }
        return Math.multiplyExact(r, bigW(l));
    }

    /** All switches of all levels. */
    public int totalSwitchCount() {
        int r = 0;
        for (int l = 1; l <= h; l++) {
            r = Math.addExact(r, switchCount(l));
        }
        return r;
    }

    /** Links between level l-1 and level l (level 0 = nodes): {@code elements(l-1) * w_l * p_l}. */
    public int linkCount(int l) {
        level(l);
        int below = l == 1 ? nodeCount() : switchCount(l - 1);
        return Math.multiplyExact(Math.multiplyExact(below, w[l]), p[l]);
    }

    /** All links, node links included. */
    public int totalLinkCount() {
        int r = 0;
        for (int l = 1; l <= h; l++) {
            r = Math.addExact(r, linkCount(l));
        }
        return r;
    }

    /** Ports of a level-l switch: {@code m_l*p_l + w_{l+1}*p_{l+1}} (top level: {@code m_h*p_h}). */
    public int radix(int l) {
        level(l);
        int down = m[l] * p[l];
        return l == h ? down : down + w[l + 1] * p[l + 1];
    }

    /** True when every level has as many up links as down links (full bisection bandwidth). */
    public boolean isFullBisection() {
        for (int l = 1; l < h; l++) {
            if (m[l] * p[l] != w[l + 1] * p[l + 1]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "PGFT(" + h + ";" + join(m) + ";" + join(w) + ";" + join(p) + ")";
    }

    private String join(int[] values) {
        StringBuilder sb = new StringBuilder();
        for (int l = 1; l <= h; l++) {
            if (l > 1) {
                sb.append(',');
            }
            sb.append(values[l]);
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgftSpec s && s.h == h && Arrays.equals(s.m, m) && Arrays.equals(s.w, w)
                && Arrays.equals(s.p, p);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(m) * 31 * 31 + Arrays.hashCode(w) * 31 + Arrays.hashCode(p);
    }
}

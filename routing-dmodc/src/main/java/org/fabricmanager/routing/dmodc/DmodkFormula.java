package org.fabricmanager.routing.dmodc;

import org.fabricmanager.topology.PgftSpec;

/**
 * The closed-form Dmodk port of a switch of the canonical PGFT (numbering of
 * {@code docs/formats.md}), written so that it equals what Dmodc computes on the intact
 * fabric. For the level-{@code l} switch {@code idx = A·W_l + B} and destination {@code d}, with
 * {@code q = floor(d / W_l)}:
 * <ul>
 *   <li>{@code d} below the switch ({@code floor(d / M_l) = A}): on a leaf, the node's port
 *       {@code 1 + (d mod m_1)}; above, child digit {@code c = floor(d / M_{l-1}) mod m_l} and
 *       port {@code 1 + c·p_l + (q mod p_l)};</li>
 *   <li>otherwise up: {@code r = q mod (w_{l+1}·p_{l+1})}, port
 *       {@code 1 + m_l·p_l + (r mod w_{l+1})·p_{l+1} + floor(r / w_{l+1})}.</li>
 * </ul>
 *
 * <p>Derivation. On the intact fabric, Procedure 1 gives every level-{@code l} switch the divider
 * {@code Π = W_l} (leaves start at 1 and each level multiplies by the {@code w_{l+1}} distinct
 * parents). Going up, every parent is one hop closer to a leaf outside the switch's subtree, so
 * {@code C} is all {@code w_{l+1}} up groups, ordered by parent GUID, i.e. by parent digit
 * {@code b} (parent index {@code (A / m_{l+1})·W_{l+1} + B + b·W_l} grows with {@code b}); each group
 * holds the {@code p_{l+1}} parallel ports {@code 1 + m_l·p_l + b·p_{l+1} + j} in {@code j} order.
 * Formulas (3) and (4) pick {@code b = q mod w_{l+1}} and {@code j = floor(q / w_{l+1}) mod p_{l+1}};
 * since {@code q mod (w·p) = (q mod w) + w·(floor(q / w) mod p)}, both come from
 * {@code r = q mod (w_{l+1}·p_{l+1})} as {@code b = r mod w_{l+1}}, {@code j = floor(r / w_{l+1})}:
 * the paper's Dmodk {@code floor(d / Π_k w_k) mod (w_{l+1}·p_{l+1})} with the parallel link as the
 * slow digit of the up-port index, as our port numbering requires. Going down, only the child
 * {@code c} owning {@code d} is closer, so {@code #C = 1} and formula (4) picks parallel link
 * {@code j = q mod p_l} of the group {@code 1 + c·p_l + j}.
 */
public final class DmodkFormula {
    private DmodkFormula() {
    }

    /** The output port of level-{@code level} switch {@code idx} of {@code spec} for destination {@code d}. */
    public static int port(PgftSpec spec, int level, int idx, int d) {
        int wl = spec.bigW(level);
        int a = idx / wl;
        int q = d / wl;
        if (d / spec.bigM(level) == a) {
            if (level == 1) {
                return 1 + d % spec.m(1);
            }
            int c = (d / spec.bigM(level - 1)) % spec.m(level);
            int p = spec.p(level);
            return 1 + c * p + q % p;
        }
        int w = spec.w(level + 1);
        int p = spec.p(level + 1);
        int r = q % (w * p);
        return 1 + spec.m(level) * spec.p(level) + (r % w) * p + r / w;
    }
}

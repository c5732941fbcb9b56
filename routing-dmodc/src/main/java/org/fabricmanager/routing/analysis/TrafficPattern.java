package org.fabricmanager.routing.analysis;

/**
 * A traffic pattern over the N attached nodes, taken in destination-index order (node i is the
 * i-th attached node): all shift permutations, seeded random permutations, or all-to-all. Text
 * forms, as the CLI takes them: {@code shift}, {@code random:R} or {@code random:R:SEED}, {@code all2all}.
 */
public sealed interface TrafficPattern {
    /** Seed of {@code random:R} when none is given. */
    long DEFAULT_SEED = 1L;

    /** The pattern's short name: {@code shift}, {@code random} or {@code all2all}. */
    String name();

    /** Every shift {@code i -> i+k mod N}, {@code k = 1..N-1}. */
    record Shift() implements TrafficPattern {
        @Override
        public String name() {
            return "shift";
        }

        @Override
        public String toString() {
            return "shift";
        }
    }

    /** {@code count} random permutations, deterministic for {@code seed}. */
    record RandomPermutations(int count, long seed) implements TrafficPattern {
        public RandomPermutations {
            if (count < 1) {
                throw new IllegalArgumentException("random traffic needs at least 1 permutation, got " + count);
            }
        }

        @Override
        public String name() {
            return "random";
        }

        @Override
        public String toString() {
            return "random:" + count + ":" + seed;
        }
    }

    /** Every node to every other node. */
    record AllToAll() implements TrafficPattern {
        @Override
        public String name() {
            return "all2all";
        }

        @Override
        public String toString() {
            return "all2all";
        }
    }

    /**
     * Parses {@code shift}, {@code random:R}, {@code random:R:SEED} or {@code all2all}.
     *
     * @throws IllegalArgumentException naming the text and the accepted forms
     */
    static TrafficPattern parse(String text) {
        String t = text.trim();
        if (t.equals("shift")) {
            return new Shift();
        }
        if (t.equals("all2all")) {
            return new AllToAll();
        }
        if (t.startsWith("random:")) {
            String[] parts = t.split(":", -1);
            if (parts.length == 2 || parts.length == 3) {
                try {
                    int count = Integer.parseInt(parts[1]);
                    long seed = parts.length == 3 ? Long.parseLong(parts[2]) : DEFAULT_SEED;
                    if (count >= 1) {
                        return new RandomPermutations(count, seed);
                    }
                } catch (NumberFormatException e) {
                    // falls through to the message below
                }
            }
        }
        throw new IllegalArgumentException("unknown traffic pattern '" + text
                + "' (expected shift, random:R, random:R:SEED with R >= 1, or all2all)");
    }
}

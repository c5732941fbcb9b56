package org.fabricmanager.cli;

import java.util.Set;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code demo}: the README's first command. Generates the default (or a given) canonical PGFT and
 * prints its summary.
 */
final class DemoCommand implements Command {
    static final String DEFAULT_PGFT = "PGFT(3;8,8,8;1,8,8;1,1,1)";

    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String summary() {
        return "run on an embedded simulated fabric (default " + DEFAULT_PGFT + ")";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager demo [--pgft SPEC]
                  Generates the canonical fabric of SPEC (default %s) and prints its summary.
                  --pgft SPEC   PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)""".formatted(DEFAULT_PGFT);
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("pgft");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) {
        PgftSpec spec;
        try {
            spec = PgftSpec.parse(args.valueOr("pgft", DEFAULT_PGFT));
        } catch (TopologyException e) {
            throw new UsageException("demo: " + e.getMessage(), e);
        }
        Fabric fabric = PgftGenerator.generate(spec);
        SummaryTable.print(fabric, console.out());
        return ExitCodes.OK;
    }
}

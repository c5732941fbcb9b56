package org.fabricmanager.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.HdftRecognition;
import org.fabricmanager.topology.HdftRecognitionReport;
import org.fabricmanager.topology.HdftRecognizer;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.PgftRecognition;
import org.fabricmanager.topology.PgftRecognizer;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.RecognitionReport;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code topology}: writes the canonical (optionally degraded) fabric of a PGFT or of a 2-D fat tree
 * (HDFT) as {@code fabric-topology/1} with its summary on stderr, or checks a fabric file
 * ({@code fabric-topology/1} or {@code ibnetdiscover} text) against a PGFT or an HDFT and prints the
 * recognition result, exiting 0 when it is the shape intact or degraded and 3 when it is not.
 */
final class TopologyCommand implements Command {
    /** Items printed per list of the check report unless {@code --all}. */
    static final int DEFAULT_LIMIT = 20;

    private static final Set<String> GENERATE_ONLY = Set.of("degrade-links", "degrade-switches", "seed", "out",
            "fail-leaves", "fail");
    private static final Set<String> CHECK_ONLY = Set.of("expect");

    @Override
    public String name() {
        return "topology";
    }

    @Override
    public String summary() {
        return "write the fabric of a PGFT or HDFT, or check a fabric file against one";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager topology --pgft SPEC [--degrade-links F] [--degrade-switches K] [--seed S] [--format json|ibsim] [--out FILE]
                       fabric-manager topology --hdft SPEC [--fail-leaves K | --fail GUID,...] [--seed S] [--format json|ibsim] [--out FILE]
                       fabric-manager topology --check FILE [--expect SPEC] [--format json|ibnetdiscover] [--all]
                  The first two forms write the canonical fabric of SPEC, optionally degraded, as fabric-topology/1
                  to FILE (or stdout) and print its summary table to stderr.
                  The last form reads FILE and says whether it is the PGFT or HDFT, intact or degraded, listing
                  what is missing, extra or miswired.
                  --pgft SPEC            PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)
                  --degrade-links F      remove this fraction (0..1) of the switch-to-switch links
                  --degrade-switches K   remove K random non-leaf switches
                  --hdft SPEC            HDFT(XxY;k;r;c): X x Y leaves with k nodes each, r switches per row and
                                         c per column (numbering in docs/topology.md)
                  --fail-leaves K        fail K random leaf switches of the HDFT
                  --fail GUID,...        fail these switches of the HDFT (leaves, row or column switches)
                  --seed S               seed of the random removals (default 1)
                  --out FILE             write the fabric to FILE instead of stdout
                  --check FILE           the fabric to check
                  --expect SPEC          the PGFT or HDFT to check against (default: the file's "pgft" or "hdft"
                                         field, else the shape inferred from the fabric, which must then be intact)
                  --format F             writing: json (fabric-topology/1, the default) or ibsim (ibsim's net
                                         format, docs/opensm.md); checking: json or ibnetdiscover, default json
                                         when the file starts with '{', else ibnetdiscover
                  --all                  list every item (default: the first %d of each list)
                  exit codes: 0 written, or intact or degraded; 2 bad arguments or input;
                              3 the fabric is not the PGFT (extra items, miswiring, or no PGFT recognised)"""
                .formatted(DEFAULT_LIMIT);
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("pgft", "degrade-links", "degrade-switches", "seed", "out", "check", "expect", "format", "hdft",
                "fail-leaves", "fail");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("all");
    }

    @Override
    public int run(Arguments args, Console console) {
        String mode = args.exactlyOneOf("pgft", "hdft", "check");
        Set<String> foreign = mode.equals("check") ? GENERATE_ONLY : Set.of("expect", "all");
        for (String option : foreign) {
            if (args.has(option) || args.flag(option)) {
                throw new UsageException("topology: --" + option + " does not go with --" + mode);
            }
        }
        return mode.equals("check") ? check(args, console) : generate(args, console);
    }

    private int generate(Arguments args, Console console) {
        String format = args.valueOr("format", "json");
        if (!format.equals("json") && !format.equals("ibsim")) {
            throw new UsageException("topology: --format must be json or ibsim when writing a fabric, got '" + format + "'");
        }
        Fabric fabric = FabricSource.load(args);
        if (format.equals("ibsim")) {
            return writeIbsim(fabric, args, console);
        }
        if (args.has("out")) {
            Path out = Path.of(args.require("out"));
            try {
                FabricJson.write(fabric, out);
            } catch (UncheckedIOException e) {
                throw new UsageException("topology: " + e.getMessage(), e);
            }
            console.err().println("wrote " + out);
        } else {
            try {
                FabricJson.write(fabric, console.out());
            } catch (IOException e) {
                throw new UncheckedIOException("writing the fabric to stdout", e);
            }
            console.out().flush();
        }
        SummaryTable.print(fabric, console.err());
        return ExitCodes.OK;
    }

    /** ibsim's net format, to reproduce the fabric under OpenSM (docs/opensm.md). */
    private static int writeIbsim(Fabric fabric, Arguments args, Console console) {
        try {
            if (args.has("out")) {
                Path out = Path.of(args.require("out"));
                IbsimNet.write(fabric, out);
                console.err().println("wrote " + out + " (ibsim net format)");
            } else {
                Writer w = new OutputStreamWriter(console.out(), StandardCharsets.UTF_8);
                IbsimNet.write(fabric, w);
            }
        } catch (UncheckedIOException e) {
            throw new UsageException("topology: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("writing the fabric to stdout", e);
        } catch (TopologyException e) {
            throw new UsageException("topology: --format ibsim: " + e.getMessage(), e);
        }
        SummaryTable.print(fabric, console.err());
        return ExitCodes.OK;
    }

    private int check(Arguments args, Console console) {
        Path file = Path.of(args.require("check"));
        PgftSpec expected = null;
        HdftSpec expectedHdft = null;
        if (args.has("expect")) {
            String text = args.require("expect");
            try {
                if (text.strip().toUpperCase().startsWith("HDFT")) {
                    expectedHdft = HdftSpec.parse(text);
                } else {
                    expected = PgftSpec.parse(text);
                }
            } catch (TopologyException e) {
                throw new UsageException("topology: --expect: " + e.getMessage(), e);
            }
        }
        Fabric fabric = read(file, format(args, file));
        int limit = args.flag("all") ? Integer.MAX_VALUE : DEFAULT_LIMIT;
        List<String> report;
        boolean matches;
        try {
            HdftRecognition hdft = null;
            PgftRecognition pgft = null;
            if (expectedHdft != null) {
                hdft = HdftRecognizer.recognize(fabric, expectedHdft);
            } else if (expected != null) {
                pgft = PgftRecognizer.recognize(fabric, expected);
            } else if (fabric.hdft().isPresent()) {
                hdft = HdftRecognizer.recognize(fabric);
            } else {
                pgft = PgftRecognizer.recognize(fabric);
                if (pgft.verdict() == PgftRecognition.Verdict.UNRECOGNISED && fabric.pgft().isEmpty()
                        && HdftRecognizer.infer(fabric).isPresent()) {
                    // not a PGFT, but an intact 2-D fat tree
                    hdft = HdftRecognizer.recognize(fabric);
                }
            }
            if (hdft != null) {
                report = HdftRecognitionReport.lines(hdft, limit);
                matches = hdft.matches();
            } else {
                report = RecognitionReport.lines(pgft, fabric, limit);
                matches = pgft.matches();
            }
        } catch (TopologyException e) {
            throw new UsageException("topology: " + e.getMessage(), e);
        }
        console.out().println(file + ": " + fabric.switches().size() + " switches, " + fabric.nodes().size() + " nodes, "
                + fabric.links().size() + " links");
        for (String line : report) {
            console.out().println(line);
        }
        return matches ? ExitCodes.OK : ExitCodes.MISMATCH;
    }

    private static String format(Arguments args, Path file) {
        String format = args.valueOr("format", "");
        if (format.equals("json") || format.equals("ibnetdiscover")) {
            return format;
        }
        if (!format.isEmpty()) {
            throw new UsageException("topology: --format must be json or ibnetdiscover, got '" + format + "'");
        }
        return startsWithBrace(file) ? "json" : "ibnetdiscover";
    }

    /** The first non-blank byte of {@code file} is '{' (or the file is empty: then JSON says what is wrong). */
    private static boolean startsWithBrace(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            int c;
            while ((c = in.read()) != -1) {
                if (!Character.isWhitespace(c) && c != 0xEF && c != 0xBB && c != 0xBF) {
                    return c == '{';
                }
            }
            return true;
        } catch (NoSuchFileException e) {
            throw new UsageException("topology: " + file + ": no such file");
        } catch (IOException e) {
            throw new UsageException("topology: " + file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static Fabric read(Path file, String format) {
        try {
            return format.equals("json") ? FabricJson.read(file) : IbnetdiscoverReader.read(file);
        } catch (TopologyException e) {
            throw new UsageException("topology: " + e.getMessage(), e);
        }
    }
}

package org.fabricmanager.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * Fault injection for a {@code simulate} process, one command per line on its standard input (the
 * process has no REST server): {@code kill GUID power|agent}, {@code revive GUID}, {@code link down GUID PORT},
 * {@code link up GUID PORT}, {@code link errors GUID PORT N} (the port's receive errors rise N a second, 0 stops
 * them: a gray link), {@code mute GUID} (the switch's failure-detector member stops while its agent runs on: the
 * ring's verdict on it is false, which the daemon's second opinion must refute). Each line is answered on the error stream with {@code ok: ...} or
 * {@code error: ...}; a bad line never stops the simulator. Lines are capped at 256 characters.
 */
final class SimulationCommands {
    private static final int MAX_LINE = 256;

    private SimulationCommands() {
    }

    /** Reads and applies commands until the input ends. */
    static void readFrom(InputStream in, FabricSimulator sim, PrintStream answers) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                String answer = apply(line, sim);
                if (answer != null) {
                    answers.println(answer);
                    answers.flush();
                }
            }
        } catch (IOException e) {
            answers.println("error: reading commands: " + e.getMessage());
        }
    }

    /** Applies one line; the answer, or {@code null} for a blank line or a comment. */
    static String apply(String line, FabricSimulator sim) {
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#")) {
            return null;
        }
        if (t.length() > MAX_LINE) {
            return "error: line longer than " + MAX_LINE + " characters";
        }
        String[] w = t.split("\\s+");
        try {
            switch (w[0]) {
                case "kill" -> {
                    expect(w, 3, "kill GUID power|agent");
                    FabricSimulator.KillMode mode = switch (w[2]) {
                        case "power" -> FabricSimulator.KillMode.POWER;
                        case "agent" -> FabricSimulator.KillMode.AGENT;
                        default -> throw new IllegalArgumentException("mode must be power or agent, got '" + w[2] + "'");
                    };
                    long guid = Guids.parseLenient(w[1]);
                    sim.kill(guid, mode);
                    return "ok: killed " + Guids.format(guid) + " (" + w[2] + ")";
                }
                case "revive" -> {
                    expect(w, 2, "revive GUID");
                    long guid = Guids.parseLenient(w[1]);
                    sim.revive(guid);
                    return "ok: revived " + Guids.format(guid);
                }
                case "link" -> {
                    if (w.length == 5 && w[1].equals("errors")) {
                        long guid = Guids.parseLenient(w[2]);
                        int port = Integer.parseInt(w[3]);
                        long perSecond = Long.parseLong(w[4]);
                        sim.linkErrors(guid, port, perSecond);
                        return "ok: link " + Guids.format(guid) + "/" + port + " errs " + perSecond + " a second";
                    }
                    expect(w, 4, "link down|up GUID PORT or link errors GUID PORT N");
                    long guid = Guids.parseLenient(w[2]);
                    int port = Integer.parseInt(w[3]);
                    if (w[1].equals("down")) {
                        sim.linkDown(guid, port);
                    } else if (w[1].equals("up")) {
                        sim.linkUp(guid, port);
                    } else {
                        throw new IllegalArgumentException("link down or link up, got 'link " + w[1] + "'");
                    }
                    return "ok: link " + Guids.format(guid) + "/" + port + " " + w[1];
                }
                case "mute" -> {
                    expect(w, 2, "mute GUID");
                    long guid = Guids.parseLenient(w[1]);
                    if (!sim.muteDetector(guid)) {
                        return "error: " + t + ": this simulator runs no failure-detector members";
                    }
                    return "ok: muted " + Guids.format(guid) + "'s failure-detector member (its agent runs on)";
                }
                default -> {
                    return "error: unknown command '" + w[0] + "' (kill, revive, link down, link up, link errors, mute)";
                }
            }
        } catch (TopologyException | IllegalArgumentException | UnsupportedOperationException e) {
            return "error: " + t + ": " + e.getMessage();
        }
    }

    private static void expect(String[] words, int n, String form) {
        if (words.length != n) {
            throw new IllegalArgumentException("expected '" + form + "'");
        }
    }
}

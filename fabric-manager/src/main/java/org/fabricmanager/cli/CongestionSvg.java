package org.fabricmanager.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The congestion of each engine as an SVG bar chart for {@code compare --svg}: one panel per
 * traffic pattern, one horizontal bar per engine (its maximum routes on one link), bars scaled to
 * the panel's largest value and labelled with it. Plain SVG 1.1, no script, no external resource.
 */
final class CongestionSvg {
    private static final int BAR = 18;
    private static final int GAP = 6;
    private static final int LABEL = 150;
    private static final int WIDTH = 420;

    /** One panel: a pattern's name and each engine's value (negative: the engine has none). */
    record Panel(String title, List<String> engines, long[] values) {
    }

    private CongestionSvg() {
    }

    static String render(String title, List<Panel> panels) {
        StringBuilder body = new StringBuilder();
        int y = 40;
        for (Panel p : panels) {
            body.append(text(10, y, p.title(), "bold"));
            y += GAP + 4;
            long max = 1;
            for (long v : p.values()) {
                max = Math.max(max, v);
            }
            for (int i = 0; i < p.engines().size(); i++) {
                long v = p.values()[i];
                body.append(text(10, y + BAR - 5, p.engines().get(i), "normal"));
                if (v >= 0) {
                    int w = (int) Math.max(1, Math.round((double) v / max * (WIDTH - 60)));
                    body.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                            LABEL, y, w, BAR, p.engines().get(i).startsWith("opensm") ? "#8c8c8c" : "#2b6cb0"));
                    body.append(text(LABEL + w + 5, y + BAR - 5, String.format("%,d", v), "normal"));
                } else {
                    body.append(text(LABEL, y + BAR - 5, "no tables", "normal"));
                }
                y += BAR + GAP;
            }
            y += 2 * GAP + 10;
        }
        return String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                + " font-size=\"12\">%n%s%s</svg>%n", Math.max(LABEL + WIDTH, 20 + 7 * title.length()), y,
                text(10, 20, title, "bold"), body);
    }

    static void write(Path file, String title, List<Panel> panels) throws IOException {
        Files.writeString(file, render(title, panels), StandardCharsets.UTF_8);
    }

    private static String text(int x, int y, String s, String weight) {
        String escaped = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return String.format("<text x=\"%d\" y=\"%d\" font-weight=\"%s\">%s</text>%n", x, y, weight, escaped);
    }
}

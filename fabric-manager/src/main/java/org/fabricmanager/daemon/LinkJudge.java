package org.fabricmanager.daemon;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.health.LinkHealthModel;
import org.fabricmanager.daemon.health.LinkJudgement;
import org.fabricmanager.daemon.health.LinkLevel;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * The judging half of {@link GrayLinks}, off the control thread: each port counters report is judged on an executor
 * of its own ({@code fm-link-health} in the daemon) for the links of the fabric routed now at the ports it covers
 * ({@link LinkHealthModel}), and only the judgements the policy needs go to the control thread, in one event per
 * report that has any: a link that is not healthy, one whose level changed since the last passed on, or one the policy
 * watches (isolated, proposed or held back). A healthy fabric's reports thus cost the control thread nothing, and the
 * index of the routed fabric's links by port (hundreds of thousands of ports at 5,120 switches) is built here, once per
 * routed fabric. What the judge knows of the daemon is what the control thread last {@linkplain #watch published}.
 */
final class LinkJudge {
    /**
     * What the control thread publishes for the judge.
     *
     * @param fabric   the fabric routed now, or {@code null} before the first routing
     * @param isolated the links isolated by the policy: out of that fabric, judged all the same for their probation
     * @param watched  the links whose every judgement the policy needs
     */
    record Watch(Fabric fabric, Set<Link> isolated, Set<Link> watched) {
        static final Watch NONE = new Watch(null, Set.of(), Set.of());
    }

    /** A judgement for the policy, and whether the link is an end node's cable. */
    record Judged(Link link, LinkJudgement judgement, boolean endNodeCable) {
    }

    /** A report's judgements for the policy, and the switch-to-switch links of the fabric they were judged in. */
    record Verdicts(List<Judged> judged, int switchLinks) {
    }

    private final LinkHealthModel model;
    private final Executor executor;
    private final Consumer<Verdicts> policy;
    private volatile Watch watch = Watch.NONE;
    // the judge's own (one report at a time on the executor)
    private Fabric indexed;
    private Set<Link> indexedIsolated = Set.of();
    private final Map<PortRef, Link> linkByPort = new HashMap<>();
    private int switchLinks;
    /** The last level passed on of each link not healthy (a link absent was last passed on healthy, or never). */
    private final Map<Link, LinkLevel> told = new HashMap<>();

    /**
     * @param executor runs the judgements one at a time, in order
     * @param policy   told of each report's verdicts (on the executor): hands them to the control thread
     */
    LinkJudge(LinkHealthSection config, Executor executor, Consumer<Verdicts> policy) {
        this.model = new LinkHealthModel(config);
        this.executor = executor;
        this.policy = policy;
    }

    /** Publishes what the judgements are to know from now on (control thread). */
    void watch(Watch w) {
        watch = w;
    }

    /** Switch {@code guid} answered {@code counters} at {@code nanos} (any thread): judged on the executor. */
    void reported(long guid, PortCounters counters, long nanos) {
        try {
            executor.execute(() -> judge(guid, counters, nanos));
        } catch (RejectedExecutionException e) {
            // the daemon stops: a report after its judge has nothing to decide
        }
    }

    private void judge(long guid, PortCounters counters, long nanos) {
        Watch w = watch;
        if (w.fabric() == null) {
            return;
        }
        index(w);
        List<Judged> out = null;
        long[] values = null;
        for (int i = 0; i < counters.portCount(); i++) {
            Link link = linkByPort.get(new PortRef(guid, counters.firstPort() + i));
            if (link == null) {
                continue;
            }
            if (values == null) {
                values = counters.values();
            }
            model.record(new PortRef(guid, counters.firstPort() + i), nanos, values, i * PortCounters.FIELDS);
            LinkJudgement j = model.judge(link, nanos);
            LinkLevel before = j.level() == LinkLevel.HEALTHY ? told.remove(link) : told.put(link, j.level());
            if (j.level() != LinkLevel.HEALTHY || (before != null && before != LinkLevel.HEALTHY)
                    || w.watched().contains(link)) {
                if (out == null) {
                    out = new ArrayList<>();
                }
                out.add(new Judged(link, j, indexed.isNode(link.a()) || indexed.isNode(link.b())));
            }
        }
        if (out != null) {
            policy.accept(new Verdicts(out, switchLinks));
        }
    }

    /** The links of the routed fabric and the isolated ones by each end, made again when either changed (rarely). */
    private void index(Watch w) {
        if (w.fabric() == indexed && w.isolated().equals(indexedIsolated)) {
            return;
        }
        indexed = w.fabric();
        linkByPort.clear();
        int between = 0;
        for (Link l : indexed.links()) {
            Link key = l.normalized();
            linkByPort.put(new PortRef(l.a(), l.aPort()), key);
            linkByPort.put(new PortRef(l.b(), l.bPort()), key);
            between += indexed.isSwitch(l.a()) && indexed.isSwitch(l.b()) ? 1 : 0;
        }
        switchLinks = between;
        indexedIsolated = w.isolated();
        for (Link l : indexedIsolated) {
            linkByPort.putIfAbsent(new PortRef(l.a(), l.aPort()), l);
            linkByPort.putIfAbsent(new PortRef(l.b(), l.bPort()), l);
        }
    }
}

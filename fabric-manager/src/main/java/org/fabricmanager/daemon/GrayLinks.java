package org.fabricmanager.daemon;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.DrainException;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.control.ControlLoop;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.faults.Drains;
import org.fabricmanager.daemon.health.IsolationPolicy;
import org.fabricmanager.daemon.health.LinkFigures;
import org.fabricmanager.daemon.health.LinkJudgement;
import org.fabricmanager.daemon.health.LinkLevel;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingManager;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gray links in the daemon ({@code linkHealth}; docs/operations.md, "Gray links"): each port counters report is
 * judged off the control thread ({@link LinkJudge}), and the {@link IsolationPolicy} decides, on the control thread,
 * about the judgements it needs (a healthy fabric's reports bring it none). A suspect link,
 * or a bad one the policy only advises about, is a {@code LINK_SUSPECT} event (a WARN line for a bad one); an
 * isolation goes the way of an operator's drain ({@link Maintenance#isolate}: judged by a what-if, stored and
 * replicated, routed around) and is a {@code LINK_ISOLATED} event; a link quiet for its probation is given back
 * ({@code LINK_REINSTATED}). The isolated links stored at a start are the policy's again. Metrics:
 * {@code fabric.link.bad} (links judged bad now), {@code fabric.link.isolated} (links the policy holds out) and
 * {@code fabric.link.isolations} (isolations so far). It answers {@code GET /api/v1/links/health} (the links not
 * healthy and the isolated ones, with their figures) and the figures that decided each isolation it made.
 */
final class GrayLinks {
    private static final Logger LOG = LoggerFactory.getLogger(GrayLinks.class);

    private final LinkHealthSection config;
    private final ControlLoop loop;
    private final MilestoneLog milestones;
    private final FabricCoordinator coordinator;
    private final RoutingManager routing;
    private final Drains drains;
    private final Maintenance maintenance;
    private final LongSupplier millis;
    private final LinkJudge judge;
    private final IsolationPolicy policy;
    private final Set<Link> bad = new HashSet<>();
    /** The last judgement of each link not healthy, or isolated by the policy (for the views). */
    private final Map<Link, LinkJudgement> latest = new HashMap<>();
    /** The figures that decided each isolation this manager made, and why each bad link is only advised about. */
    private final Map<Link, String> decided = new HashMap<>();
    private final Map<Link, String> advice = new HashMap<>();
    /** Isolations proposed and not done or refused yet. */
    private final Set<Link> inFlight = new HashSet<>();
    private final AtomicInteger badGauge = new AtomicInteger();
    private final AtomicInteger isolatedGauge = new AtomicInteger();
    private final Counter isolations;
    /** Since when (ms) the daemon is converged, or -1. */
    private long convergedSince = -1;

    /** What the monitor works with; {@code judging} runs the judgements, one at a time. */
    record Parts(LinkHealthSection config, ControlLoop loop, MilestoneLog milestones, FabricCoordinator coordinator,
                 RoutingManager routing, Drains drains, Maintenance maintenance, Executor judging) {
    }

    /** How often the control thread tells the judge what it needs to know, at the latest (ms). */
    static final long PUBLISH_MS = 1_000;
    /** Deferred-event tag of that. */
    static final String PUBLISH = "link-health-watch";

    GrayLinks(Parts p, MeterRegistry meters, LongSupplier millis) {
        this.config = p.config();
        this.loop = p.loop();
        this.milestones = p.milestones();
        this.coordinator = p.coordinator();
        this.routing = p.routing();
        this.drains = p.drains();
        this.maintenance = p.maintenance();
        this.millis = millis;
        this.judge = new LinkJudge(config, p.judging(), v -> loop.append("link health", () -> decide(v)));
        this.policy = new IsolationPolicy(config);
        Drains drains = this.drains;
        drains.isolatedView().forEach((end, i) -> policy.restore(link(end, i.peer()), i.sinceMillis(),
                i.probationMs()));
        isolatedGauge.set(drains.isolatedView().size());
        Gauge.builder("fabric.link.bad", badGauge, AtomicInteger::get)
                .description("links whose port counters judge them bad now (gray links)").register(meters);
        Gauge.builder("fabric.link.isolated", isolatedGauge, AtomicInteger::get)
                .description("links the gray-link policy holds out of the routing now").register(meters);
        this.isolations = Counter.builder("fabric.link.isolations")
                .description("links isolated by the gray-link policy since the daemon started").register(meters);
        loop.append("link health", this::tick);
    }

    /** Switch {@code guid} answered {@code counters} at {@code nanos} (any thread): judged off the control thread. */
    void reported(long guid, PortCounters counters, long nanos) {
        judge.reported(guid, counters, nanos);
    }

    /** Notes since when the daemon is converged, as the judgements see it (within a second of the change). */
    private void stateSeen() {
        boolean converged = coordinator.state() == DaemonState.CONVERGED;
        if (!converged) {
            convergedSince = -1;
        } else if (convergedSince < 0) {
            convergedSince = millis.getAsLong();
        }
    }

    /** Control thread, every {@link #PUBLISH_MS}: the state seen, the judge told of the routed fabric. */
    private void tick() {
        stateSeen();
        reconcile();
        publish();
        loop.scheduleDeferred(PUBLISH, PUBLISH_MS, this::tick);
    }

    /** Tells the judge the fabric routed now and the links the policy watches (control thread). */
    private void publish() {
        ActiveRouting active = routing.active();
        Set<Link> isolatedLinks = new HashSet<>();
        drains.isolatedView().forEach((end, i) -> isolatedLinks.add(link(end, i.peer())));
        Set<Link> watched = new HashSet<>(isolatedLinks);
        watched.addAll(policy.isolated().keySet());
        watched.addAll(policy.heldBack());
        watched.addAll(inFlight);
        judge.watch(new LinkJudge.Watch(active == null ? null : active.fabric(), Set.copyOf(isolatedLinks),
                Set.copyOf(watched)));
    }

    /** Control thread: the policy decides about a report's judgements. */
    private void decide(LinkJudge.Verdicts verdicts) {
        reconcile();
        stateSeen();
        long now = millis.getAsLong();
        boolean settled = convergedSince >= 0 && now - convergedSince >= config.settleMs();
        for (LinkJudge.Judged judged : verdicts.judged()) {
            Link link = judged.link();
            LinkJudgement j = judged.judgement();
            if (j.level() == LinkLevel.BAD ? bad.add(link) : bad.remove(link)) {
                badGauge.set(bad.size());
            }
            if (j.level() != LinkLevel.BAD) {
                advice.remove(link);
            }
            if (j.level() == LinkLevel.HEALTHY && !policy.isolated().containsKey(link)) {
                latest.remove(link);
            } else {
                latest.put(link, j);
            }
            act(link, j, policy.decide(link, j, new IsolationPolicy.Fabric(judged.endNodeCable(),
                    verdicts.switchLinks(), settled), now));
        }
        publish();
    }

    private void act(Link link, LinkJudgement j, IsolationPolicy.Decision d) {
        LinkFigures f = j.figures();
        switch (d.action()) {
            case SUSPECT -> milestones.record(Milestone.Kind.LINK_SUSPECT, "link " + link + " suspect: "
                    + f.describe(), details(j, null));
            case ADVISE -> {
                advice.put(link.normalized(), d.reason());
                String line = "link " + link + " bad, not isolated (" + d.reason() + "): " + f.describe();
                LOG.warn("{}", line);
                milestones.record(Milestone.Kind.LINK_SUSPECT, line, details(j, d.reason()));
            }
            case ISOLATE -> isolate(link, j);
            case REINSTATE -> {
                PortRef end = storedEnd(link);
                if (end != null) {
                    Drains.Isolation i = drains.isolatedView().get(end);
                    maintenance.reinstate(end, "healthy for " + (i == null ? 0 : i.probationMs() / 1000) + " s: "
                            + f.describe(), details(j, null)).whenComplete((r, e) -> loop.append("link health",
                            () -> {
                                isolatedGauge.set(drains.isolatedView().size());
                                publish();
                            }));
                }
            }
            default -> {
            }
        }
    }

    private void isolate(Link link, LinkJudgement j) {
        ActiveRouting active = routing.active();
        PortRef end = active == null || active.fabric().isSwitch(link.a()) ? new PortRef(link.a(), link.aPort())
                : new PortRef(link.b(), link.bPort());
        PortRef peer = end.guid() == link.a() && end.port() == link.aPort() ? new PortRef(link.b(), link.bPort())
                : new PortRef(link.a(), link.aPort());
        IsolationPolicy.Isolated planned = policy.isolated().get(link.normalized());
        Drains.Isolation isolation = new Drains.Isolation(peer, planned.sinceMillis(), planned.probationMs());
        Link key = link.normalized();
        inFlight.add(key);
        decided.put(key, j.figures().describe()); // listed with the isolation from the moment it is stored
        maintenance.isolate(end, isolation, j.figures().describe(), details(j, null)).whenComplete((r, e) ->
                loop.append("link health", () -> {
                    inFlight.remove(key);
                    if (e == null) {
                        isolations.increment();
                    } else {
                        decided.remove(key);
                        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        boolean busy = cause instanceof DrainException de && de.kind() == DrainException.Kind.BUSY;
                        if (busy) {
                            policy.withdrawn(link);
                        } else {
                            policy.refused(link);
                            advice.put(key, cause.getMessage());
                            String line = "link " + link + " bad, not isolated (" + cause.getMessage() + "): "
                                    + j.figures().describe();
                            LOG.warn("{}", line);
                            milestones.record(Milestone.Kind.LINK_SUSPECT, line, details(j, cause.getMessage()));
                        }
                    }
                    isolatedGauge.set(drains.isolatedView().size());
                    publish();
                }));
    }

    /** The policy's isolations an operator released or pinned, or a standby's store lost: no longer the policy's. */
    private void reconcile() {
        List<Link> gone = new ArrayList<>();
        for (Link l : policy.isolated().keySet()) {
            if (storedEnd(l) == null && !inFlight.contains(l)) {
                gone.add(l);
            }
        }
        for (Link l : gone) {
            policy.released(l);
        }
        decided.keySet().removeIf(l -> storedEnd(l) == null && !inFlight.contains(l));
        latest.entrySet().removeIf(e -> e.getValue().level() == LinkLevel.HEALTHY && storedEnd(e.getKey()) == null
                && !inFlight.contains(e.getKey()));
        isolatedGauge.set(drains.isolatedView().size());
    }

    /** The end under which {@code link}'s isolation is stored, or {@code null}. */
    private PortRef storedEnd(Link link) {
        PortRef a = new PortRef(link.a(), link.aPort());
        PortRef b = new PortRef(link.b(), link.bPort());
        return drains.isolatedView().containsKey(a) ? a : drains.isolatedView().containsKey(b) ? b : null;
    }

    /** The figures that decided the isolation stored under {@code end}, or {@code null} (control thread). */
    String decidedFigures(PortRef end) {
        Drains.Isolation i = drains.isolatedView().get(end);
        return i == null ? null : decided.get(link(end, i.peer()));
    }

    /**
     * {@code GET /api/v1/links/health}: the links judged suspect or bad now and those isolated by the policy, the
     * isolated first in the order isolated (control thread); {@code names} gives a switch's name.
     */
    List<Views.LinkHealth> view(LongFunction<String> names) {
        Map<Link, Drains.Isolation> out = new LinkedHashMap<>();
        drains.isolatedView().forEach((end, i) -> out.put(link(end, i.peer()), i));
        latest.keySet().stream().sorted(Comparator.comparing(Link::toString)).forEach(l -> out.putIfAbsent(l, null));
        List<Views.LinkHealth> views = new ArrayList<>();
        out.forEach((l, i) -> {
            LinkJudgement j = latest.get(l);
            views.add(new Views.LinkHealth(l.toString(), names.apply(l.a()), names.apply(l.b()),
                    j == null ? null : j.level().name(), j == null ? null : j.figures().describe(),
                    j == null ? null : details(j, null), advice.get(l), i != null, i == null ? null : decided.get(l),
                    i == null ? null : i.sinceMillis(), i == null ? null : i.probationMs()));
        });
        return views;
    }

    private static Link link(PortRef a, PortRef b) {
        return new Link(a.guid(), a.port(), b.guid(), b.port()).normalized();
    }

    private static Map<String, Object> details(LinkJudgement j, String advice) {
        LinkFigures f = j.figures();
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("level", j.level().name());
        if (f.counter() != null) {
            d.put("counter", f.counter());
            d.put("at", f.at().toString());
            d.put("errors", f.errors());
            d.put("packets", f.packets());
            d.put("ppm", Math.round(f.ppm()));
        }
        d.put("packetsPerSecond", Math.round(f.packetsPerSecond()));
        d.put("loaded", f.loaded());
        d.put("windowMs", f.windowMs());
        if (advice != null) {
            d.put("advice", advice);
        }
        return d;
    }
}

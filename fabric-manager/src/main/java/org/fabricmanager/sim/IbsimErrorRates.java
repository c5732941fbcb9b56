package org.fabricmanager.sim;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Error counters that rise at a rate on ports ibsim simulates: ibsim's {@code PerformanceSet} sets a counter once, so
 * once a second each erring port's {@code SymbolErrorCounter} is set again, raised by its rate, and OpenSM's
 * performance manager reads it rising as from a cable that corrupts. The counter is 16 bits wide and OpenSM's
 * performance manager clears a port's counters once one of them passes three quarters of its range: a value that
 * would reach {@link #LIMIT} starts again from the second's errors instead, which OpenSM takes for a clear made
 * elsewhere (it counts the new value whole). A reading of OpenSM across such a restart misses what was written before
 * it: the rate OpenSM reports can come out lower than the one asked, never higher. Thread-safe.
 */
public final class IbsimErrorRates implements AutoCloseable {
    /** OpenSM's performance manager clears a 16-bit counter from here on (three quarters of 0xffff). */
    static final long LIMIT = 0xffff - 0xffff / 4;
    /** Most errors a second: one second's must stay below {@link #LIMIT}. */
    public static final long MAX_PER_SECOND = LIMIT - 1;
    private static final Logger LOG = LoggerFactory.getLogger(IbsimErrorRates.class);

    private record Port(String id, int port) {
    }

    private final IbsimFaults.Console console;
    private final Map<Port, Long> rates = new HashMap<>();
    private final Map<Port, Long> values = new HashMap<>();
    private ScheduledExecutorService ticks;

    /** Rates that rise only at {@link #tick}: {@link #start} has a thread tick once a second. */
    IbsimErrorRates(IbsimFaults.Console console) {
        this.console = console;
    }

    /** Rates that rise once a second on a thread of their own, until {@link #close}. */
    public static IbsimErrorRates start(IbsimFaults.Console console) {
        IbsimErrorRates r = new IbsimErrorRates(console);
        r.ticks = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "fm-ibsim-errors");
            t.setDaemon(true);
            return t;
        });
        r.ticks.scheduleAtFixedRate(r::tick, 1, 1, TimeUnit.SECONDS);
        return r;
    }

    /**
     * Makes port {@code port} of ibsim's node {@code id} count {@code perSecond} symbol errors a second from the next
     * second on; 0 stops them (the counter keeps its value).
     *
     * @throws IllegalArgumentException      when {@code perSecond} is negative
     * @throws UnsupportedOperationException  when {@code perSecond} is above {@link #MAX_PER_SECOND}: no 16-bit
     *                                        counter shows it
     */
    public synchronized void set(String id, int port, long perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("perSecond must not be negative, got " + perSecond);
        }
        if (perSecond > MAX_PER_SECOND) {
            throw new UnsupportedOperationException("perSecond at most " + MAX_PER_SECOND + " under ibsim (a 16-bit "
                    + "counter that OpenSM clears at three quarters of its range), got " + perSecond);
        }
        Port p = new Port(id, port);
        if (perSecond == 0) {
            rates.remove(p);
        } else {
            rates.put(p, perSecond);
        }
    }

    /** The ports erring now and their rates. */
    synchronized Map<String, Long> rates() {
        Map<String, Long> out = new HashMap<>();
        rates.forEach((p, r) -> out.put(p.id() + "[" + p.port() + "]", r));
        return out;
    }

    /** One second: each erring port's counter raised by its rate. */
    synchronized void tick() {
        rates.forEach((p, rate) -> {
            long v = values.getOrDefault(p, 0L) + rate;
            if (v >= LIMIT) {
                v = rate;
            }
            values.put(p, v);
            try {
                console.type("PerformanceSet \"" + p.id() + "\"[" + p.port() + "] PortCounters.SymbolErrorCounter=" + v);
            } catch (IOException e) {
                // ibsim gone: the demo ends with it; the next second tries again meanwhile
                LOG.warn("ibsim's console: {}", e.getMessage());
            }
        });
    }

    @Override
    public void close() {
        if (ticks != null) {
            ticks.shutdownNow();
        }
    }
}

package org.fabricmanager.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The one way tests wait: poll a condition until it holds or a deadline passes, with a short backoff
 * (1 ms doubling to 50 ms), and fail with an {@link AssertionError} that says what was awaited and the
 * last value seen. It is the only place in unit tests where {@code Thread.sleep} may appear: a test
 * that must prove "nothing happens" waits here for the event that shows the system has moved on
 * (a counter, a later version, a processed close) and then asserts, rather than sleeping a fixed time.
 *
 * <p>The deadline is generous on purpose (a slow, shared machine only makes the test slower, never
 * wrong); the default is {@link #DEFAULT}, and {@code -Dfm.test.await.scale=N} multiplies every deadline.
 */
public final class Await {

    /** The default deadline: long enough for a loaded build machine. */
    public static final Duration DEFAULT = Duration.ofSeconds(30);

    private static final long MAX_BACKOFF_NANOS = 50_000_000L;

    private Await() {
    }

    /** Waits up to {@link #DEFAULT} until {@code condition} holds. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT, condition);
    }

    /** Waits up to {@code timeout} until {@code condition} holds. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        value(what, timeout, condition::getAsBoolean, Boolean::booleanValue);
    }

    /** Waits up to {@link #DEFAULT} until {@code supplier}'s value satisfies {@code done}; returns that value. */
    public static <T> T value(String what, Callable<T> supplier, Predicate<? super T> done) {
        return value(what, DEFAULT, supplier, done);
    }

    /**
     * Waits up to {@code timeout} until the value of {@code supplier} satisfies {@code done}, and returns it.
     * An exception from the supplier counts as "not yet" (its message is reported if the wait times out);
     * an {@link AssertionError} from it fails at once.
     */
    public static <T> T value(String what, Duration timeout, Callable<T> supplier, Predicate<? super T> done) {
        long start = System.nanoTime();
        long deadline = start + scaled(timeout).toNanos();
        long backoff = 1_000_000L;
        Object last = "(nothing yet)";
        while (true) {
            try {
                T v = supplier.call();
                last = v;
                if (done.test(v)) {
                    return v;
                }
            } catch (AssertionError e) {
                throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what + "; last seen: " + last, e);
            } catch (Exception e) {
                last = e;
            }
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                throw new AssertionError("timed out after " + (now - start) / 1_000_000 + " ms waiting for "
                        + what + "; last seen: " + last);
            }
            sleep(Math.min(backoff, deadline - now));
            backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
        }
    }

    private static Duration scaled(Duration timeout) {
        long scale = Long.getLong("fm.test.await.scale", 1);
        return scale > 1 ? timeout.multipliedBy(scale) : timeout;
    }

    private static void sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}

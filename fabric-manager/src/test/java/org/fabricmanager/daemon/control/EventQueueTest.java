package org.fabricmanager.daemon.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventQueueTest {
    @Test
    void eventsRunInOrderOnOneThread() throws Exception {
        List<Integer> seen = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        try (EventQueue q = new EventQueue("test-control")) {
            for (int i = 0; i < 1000; i++) {
                int n = i;
                q.append("e" + i, () -> {
                    seen.add(n);
                    threads.add(Thread.currentThread().getName());
                });
            }
            assertThat(q.call("sync", () -> seen.size()).get(5, TimeUnit.SECONDS)).isEqualTo(1000);
        }
        for (int i = 0; i < 1000; i++) {
            assertThat(seen.get(i)).isEqualTo(i);
        }
        assertThat(threads).containsOnly("test-control");
    }

    @Test
    void reschedulingATagReplacesThePendingEvent() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        try (EventQueue q = new EventQueue("test-control")) {
            for (int i = 0; i < 50; i++) {
                int n = i;
                q.scheduleDeferred("settle", 30, () -> {
                    seen.add("settle " + n);
                    done.countDown();
                });
            }
            assertThat(q.isScheduled("settle")).isTrue();
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            q.call("sync", () -> null).get();
            assertThat(seen).containsExactly("settle 49");
            assertThat(q.isScheduled("settle")).isFalse();
        }
    }

    @Test
    void deferredEventsRunByDeadlineAndCancelledOnesNever() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        try (EventQueue q = new EventQueue("test-control")) {
            q.scheduleDeferred("late", 80, () -> {
                seen.add("late");
                done.countDown();
            });
            q.scheduleDeferred("early", 10, () -> seen.add("early"));
            q.scheduleDeferred("never", 20, () -> seen.add("never"));
            assertThat(q.cancelDeferred("never")).isTrue();
            q.append("now", () -> seen.add("now"));
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(seen).containsExactly("now", "early", "late");
    }

    @Test
    void aFailingEventDoesNotStopTheLoop() throws Exception {
        try (EventQueue q = new EventQueue("test-control")) {
            q.append("boom", () -> {
                throw new IllegalStateException("expected in this test");
            });
            assertThat(q.call("after", () -> "alive").get(5, TimeUnit.SECONDS)).isEqualTo("alive");
            assertThat(q.failures()).isEqualTo(1);
        }
    }
}

package org.fabricmanager.daemon.push;

import org.fabricmanager.daemon.push.SwitchPush.Status;

/**
 * How many attached switches an {@link LftPusher} has in each {@link Status} and how many are failing, kept as
 * statuses change so that every count is O(1) at thousands of switches.
 */
final class StatusCounts {
    private int inSync;
    private int pending;
    private int routedAround;
    private int uncovered;
    private int failing;

    /** Moves {@code sp} to status {@code next}, and the counts with it. */
    void move(SwitchPush sp, Status next) {
        count(sp.status, -1);
        sp.status = next;
        count(next, 1);
    }

    /** Takes a switch that is no longer attached out of every count. */
    void forget(SwitchPush sp) {
        count(sp.status, -1);
        sp.status = Status.DETACHED;
        if (sp.failing) {
            sp.failing = false;
            failing--;
        }
    }

    /** Marks {@code sp} failing or not. */
    void failing(SwitchPush sp, boolean now) {
        if (sp.failing != now && sp.status != Status.DETACHED) {
            failing += now ? 1 : -1;
        }
        sp.failing = now;
    }

    private void count(Status s, int delta) {
        switch (s) {
            case IN_SYNC -> inSync += delta;
            case PENDING -> pending += delta;
            case ROUTED_AROUND -> routedAround += delta;
            case UNCOVERED -> uncovered += delta;
            case DETACHED -> {
            }
        }
    }

    int inSync() {
        return inSync;
    }

    /** Covered switches that do not hold their row, routed around or not. */
    int pending() {
        return pending + routedAround;
    }

    /** Covered switches that do not hold their row and that the current tables route traffic through. */
    int awaited() {
        return pending;
    }

    /** Covered switches that do not hold their row and that the current tables route no traffic through. */
    int routedAround() {
        return routedAround;
    }

    int uncovered() {
        return uncovered;
    }

    int failing() {
        return failing;
    }
}

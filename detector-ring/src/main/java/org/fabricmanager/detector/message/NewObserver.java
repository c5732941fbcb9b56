package org.fabricmanager.detector.message;

import java.util.List;

/**
 * An observer tells its new emitter "heartbeat me from now on" (the slides' NewObserver). It names the
 * members it believes dead between the emitter and itself, so that the emitter can check that the
 * request is not stale: the emitter accepts only when none of those members is alive in its own view.
 *
 * @param gap the dead members strictly between the receiver and the sender, with their incarnations
 */
public record NewObserver(int from, long fromIncarnation, List<MemberStatus> gap) implements RingMessage {

    public NewObserver {
        gap = List.copyOf(gap);
    }
}

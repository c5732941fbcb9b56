package org.fabricmanager.daemon.health;

/**
 * A link's judgement: its level after hysteresis, the level its counters alone say now, and the figures.
 *
 * @param level   healthy, suspect or bad, held by the hysteresis
 * @param raw     what this window alone says
 * @param figures what decided
 */
public record LinkJudgement(LinkLevel level, LinkLevel raw, LinkFigures figures) {
}

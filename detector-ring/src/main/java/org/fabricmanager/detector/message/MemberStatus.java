package org.fabricmanager.detector.message;

/**
 * One entry of a membership view: a member, the highest incarnation known for it and whether that
 * incarnation is dead. Entries order as alive@i before dead@i before alive@i+1.
 */
public record MemberStatus(int member, long incarnation, boolean dead) {
}

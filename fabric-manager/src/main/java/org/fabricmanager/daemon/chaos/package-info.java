/**
 * The chaos simulation: the whole daemon ({@link org.fabricmanager.daemon.VirtualDaemon}) on one virtual clock with
 * simulated switches, driven by seeded schedules of faults and operator actions ({@link
 * org.fabricmanager.daemon.chaos.ChaosSchedule}), judged at every quiet point by an oracle of its own; a failing schedule shrinks to a short one that replays. The command
 * {@code fabric-manager chaos} runs campaigns of it ({@link org.fabricmanager.daemon.chaos.ChaosCampaign}).
 */
package org.fabricmanager.daemon.chaos;

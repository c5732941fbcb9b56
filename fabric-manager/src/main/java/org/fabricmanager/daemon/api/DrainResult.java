package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code POST /api/v1/drain} and {@code /api/v1/undrain}: what was done. The re-route it starts follows at once
 * (the status shows it converge, with a routing version above {@code routingVersion}).
 *
 * @param result         {@code drained} or {@code undrained}
 * @param element        {@code switch 0x…} or {@code link 0x…:P}
 * @param guid           the switch
 * @param port           the cable's port, {@code null} for a switch
 * @param name           the switch's name
 * @param routingVersion the routing in force when it was done (0: none yet)
 * @param forced         drained with force, without the what-if's judgement
 * @param nodesCutOff    end nodes the drain cuts off (only ever above 0 when forced)
 * @param whatIf         the what-if that judged the drain, {@code null} when forced or for an undrain
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DrainResult(String result, String element, String guid, Integer port, String name, long routingVersion,
                          boolean forced, int nodesCutOff, WhatIfResult whatIf) {
}

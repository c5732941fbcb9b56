package org.fabricmanager.daemon.discovery;

import java.util.function.Consumer;

/** The port reports of the admitted switches, as discovery reads them (the switch registry holds them). */
public interface PortReports {

    /** Switches admitted into the fabric. */
    int admittedCount();

    /** The reports of admitted switch {@code guid}, or {@code null} when it is not admitted. */
    SwitchPorts admittedPorts(long guid);

    /** Calls {@code action} for every admitted switch's reports. */
    void forEachAdmitted(Consumer<SwitchPorts> action);
}

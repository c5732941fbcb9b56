package org.fabricmanager.daemon.discovery;

import java.util.Collection;
import java.util.List;
import org.fabricmanager.topology.PortRef;

/**
 * What an operator drained, as discovery needs it: routing sees the drained ports down ({@link #masked}), while the
 * check against the expected shape sees the drained switches and cables that are present and up as they are, drained
 * and not missing ({@link DrainedParts}).
 */
public interface Drained {
    /** Nothing drained (tests, and tools that build fabrics without a daemon). */
    Drained NONE = new Drained() {
        @Override
        public SwitchPorts masked(SwitchPorts ports) {
            return ports;
        }

        @Override
        public Collection<PortRef> elements() {
            return List.of();
        }
    };

    /** The reports as routing must see them: the drained ports down (the reports themselves when none is). */
    SwitchPorts masked(SwitchPorts ports);

    /** The drained elements as named: a switch (port 0) or one end of a cable. */
    Collection<PortRef> elements();
}

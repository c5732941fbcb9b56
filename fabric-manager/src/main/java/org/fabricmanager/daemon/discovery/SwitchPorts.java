package org.fabricmanager.daemon.discovery;

import org.fabricmanager.southbound.PortRecord;

/**
 * The latest port records of one connected switch, as its agent reported them (PORT_INFO, then
 * PORT_STATUS changes). Mutable; owned by the daemon's control thread.
 */
public final class SwitchPorts {
    private final long guid;
    private final String name;
    private final PortRecord[] ports;

    public SwitchPorts(long guid, String name, int portCount) {
        this.guid = guid;
        this.name = name;
        this.ports = new PortRecord[portCount + 1];
        for (int p = 1; p <= portCount; p++) {
            ports[p] = PortRecord.down(p);
        }
    }

    public long guid() {
        return guid;
    }

    public String name() {
        return name;
    }

    public int portCount() {
        return ports.length - 1;
    }

    /** The record of port {@code p} (1-based). */
    public PortRecord port(int p) {
        return ports[p];
    }

    /**
     * Stores a record.
     *
     * @return true when it differs from the stored one
     */
    public boolean update(PortRecord r) {
        boolean changed = !ports[r.port()].equals(r);
        ports[r.port()] = r;
        return changed;
    }

    /** A copy that later updates of this one do not change (port records are immutable). */
    public SwitchPorts copy() {
        SwitchPorts c = new SwitchPorts(guid, name, portCount());
        System.arraycopy(ports, 1, c.ports, 1, portCount());
        return c;
    }

    /** Number of ports that are up. */
    public int portsUp() {
        int n = 0;
        for (int p = 1; p < ports.length; p++) {
            if (ports[p].isUp()) {
                n++;
            }
        }
        return n;
    }
}

package org.fabricmanager.daemon.push;

import java.util.LinkedHashMap;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.TableHash;

/**
 * The last table versions an {@link LftPusher} installed, so that a switch that (re)connects is sent only what it
 * lacks: its HELLO's version and hash say what it holds, and when they match a table the daemon still has, only the
 * differences are sent, and nothing at all when it is current.
 */
final class TableHistory {
    private static final int HISTORY = 4;

    private final LinkedHashMap<Long, TableSet> history = new LinkedHashMap<>();

    /** Remembers {@code tables}, forgetting the oldest beyond the last few. */
    void add(TableSet tables) {
        history.put(tables.version(), tables);
        while (history.size() > HISTORY) {
            history.remove(history.keySet().iterator().next());
        }
    }

    /** What switch {@code guid} holds, from its {@code hello}, against the {@code current} tables (nullable) and the others. */
    HeldTable reconcile(long guid, Hello hello, TableSet current) {
        if (hello.tableLength() == 0 && hello.tableHash() == TableHash.EMPTY) {
            return HeldTable.empty(hello.tableVersion(), hello.tableHash());
        }
        if (current != null) {
            int row = current.row(guid);
            if (row >= 0 && current.length() == hello.tableLength() && current.hash(row) == hello.tableHash()) {
                return HeldTable.of(current, row, hello.tableVersion());
            }
        }
        TableSet known = history.get(hello.tableVersion());
        if (known != null) {
            int row = known.row(guid);
            if (row >= 0 && known.length() == hello.tableLength() && known.hash(row) == hello.tableHash()) {
                return HeldTable.of(known, row);
            }
        }
        return HeldTable.unknown(hello.tableVersion(), hello.tableLength(), hello.tableHash());
    }
}

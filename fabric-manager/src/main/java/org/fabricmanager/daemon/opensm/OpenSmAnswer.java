package org.fabricmanager.daemon.opensm;

import java.nio.ByteBuffer;
import java.util.List;
import org.fabricmanager.daemon.opensm.OpenSmWire.SwitchChanges;

/**
 * The daemon's answer to one SUBNET of OpenSM's plug-in, as a value: the whole tables, their change to an answer the
 * plug-in holds, or a refusal with its code. Encoded by {@link OpenSmWire} only when the socket sends it.
 */
public sealed interface OpenSmAnswer {
    /** The subnet answered. */
    long seq();

    /** Whether the answer carries the daemon's tables (TABLES or DELTA). */
    default boolean carriesTables() {
        return !(this instanceof Refused);
    }

    /** The frame on the wire. */
    ByteBuffer encode();

    /** TABLES, answer {@code id}: {@code rows[i]} (LIDs 0..entries - 1) for switch {@code guids[i]}. */
    record Tables(long seq, long id, long[] guids, byte[][] rows, int entries) implements OpenSmAnswer {
        @Override
        public ByteBuffer encode() {
            return OpenSmWire.tables(seq, id, guids, rows, entries);
        }
    }

    /**
     * DELTA, answer {@code id}: the tables of answer {@code base} (which the plug-in holds, for the same {@code switches}
     * switches), each row cut or filled with 255 to {@code entries}, with {@code changes} applied.
     */
    record Delta(long seq, long id, long base, int switches, int entries, List<SwitchChanges> changes)
            implements OpenSmAnswer {
        @Override
        public ByteBuffer encode() {
            return OpenSmWire.delta(seq, id, base, switches, entries, changes);
        }
    }

    /** REFUSED: OpenSM falls back to its next engine; the plug-in acts on {@code why} and logs {@code reason}. */
    record Refused(long seq, Refusal why, String reason) implements OpenSmAnswer {
        @Override
        public ByteBuffer encode() {
            return OpenSmWire.refused(seq, why, reason);
        }
    }
}

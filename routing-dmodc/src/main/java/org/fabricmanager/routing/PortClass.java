package org.fabricmanager.routing;

/**
 * What a switch port leads to, as virtual-channel rules name ports: a rule says which channel a
 * packet takes when it leaves by a port of one class after arriving by a port of another. The
 * classes are those the project's topologies need (2-D fat trees: leaves, row and column switches).
 */
public enum PortClass {
    /** Unused, or leading to a switch of no particular role. */
    OTHER,
    /** Leads to an end node. */
    NODE,
    /** Leads to a leaf switch. */
    LEAF,
    /** Leads to a row switch (a switch joining the leaves of one row). */
    ROW,
    /** Leads to a column switch (a switch joining the leaves of one column). */
    COLUMN
}

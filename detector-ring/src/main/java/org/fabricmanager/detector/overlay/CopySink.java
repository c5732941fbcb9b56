package org.fabricmanager.detector.overlay;

/** Receives the copies an overlay wants sent: to which member, on which cube and tree. */
@FunctionalInterface
public interface CopySink {
    void copy(int target, int cube, int tree);
}

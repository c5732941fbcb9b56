/**
 * Test fixtures shared by every module's tests through topology-pgft's test-jar: {@link
 * org.fabricmanager.testing.Await}, the one way tests wait (the only place a unit test may sleep),
 * {@link org.fabricmanager.testing.TestFabrics}, the fabrics they run on, and {@link
 * org.fabricmanager.testing.RealParts}, the one gate of tests that need a tool, root or a native library (a skip
 * outside CI, a failure under {@code FM_REQUIRE_REAL_PARTS=1}).
 */
package org.fabricmanager.testing;

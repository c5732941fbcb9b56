/**
 * Test fixtures shared by every module's tests through topology-pgft's test-jar: {@link
 * org.fabricmanager.testing.Await}, the one way tests wait (the only place a unit test may sleep), and
 * {@link org.fabricmanager.testing.TestFabrics}, the fabrics they run on.
 */
package org.fabricmanager.testing;

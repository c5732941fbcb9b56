/**
 * Test fixtures shared by every module's tests through topology-pgft's test-jar: {@link
 * org.fabricmanager.testing.Await}, the one way tests wait, and (later) the test fabrics.
 */
package org.fabricmanager.testing;

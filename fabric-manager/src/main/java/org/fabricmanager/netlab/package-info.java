/**
 * {@code netlab}: a fat tree of Linux network namespaces on one machine that carries real packets, one namespace
 * per switch (a bridge programmed by a Linux agent) and per end node, veth pairs as cables. See
 * {@code docs/linux-agent.md}.
 */
package org.fabricmanager.netlab;

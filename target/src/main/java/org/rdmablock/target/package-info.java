/** The SRP target daemon: configuration, sessions, the command pipeline and the LUN backends. */
package org.rdmablock.target;

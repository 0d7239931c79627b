/** Pieces that verbs providers share; not for applications. */
package org.rdmablock.verbs.spi;

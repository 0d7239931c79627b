/** Java verbs API. */
package org.rdmablock.verbs;

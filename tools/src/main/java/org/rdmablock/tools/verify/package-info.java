/**
 * Blocks that say what they should be ({@link org.rdmablock.tools.verify.VerifiedBlock}), written and checked by the
 * soak and the power-cut tools.
 */
package org.rdmablock.tools.verify;

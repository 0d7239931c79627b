/**
 * {@code rdmablock powercut} ({@link org.rdmablock.tools.powercut.PowerCutCommand}): verified writes whose every step
 * (sent, acknowledged, synchronized) is journalled outside the machine that may lose its power, and the check, after
 * that machine has come back, that no write the rules call durable was lost (issue 41 §1).
 */
package org.rdmablock.tools.powercut;

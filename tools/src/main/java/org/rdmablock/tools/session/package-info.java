/**
 * What the tools that drive a target through the initiator library share: the options that name the target and this
 * initiator ({@link org.rdmablock.tools.session.TargetOptions}, a picocli mixin) and a target started in the tool's
 * own process ({@link org.rdmablock.tools.session.EmbeddedTarget}).
 */
package org.rdmablock.tools.session;

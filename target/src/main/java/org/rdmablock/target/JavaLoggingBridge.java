package org.rdmablock.target;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging (and so System.Logger, whose default backend it is) to SLF4J, for the daemon: the verbs
 * providers log through System.Logger, and their lines belong in the daemon's log. Only {@link TargetMain#main} calls
 * it; programs that embed the target keep their own logging. jul-to-slf4j is optional in the target's class path:
 * without it nothing is routed.
 */
final class JavaLoggingBridge {
    private JavaLoggingBridge() {
    }

    static void install() {
        try {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        } catch (LinkageError e) {
            // jul-to-slf4j is not on the class path: java.util.logging keeps its own handlers
        }
    }
}

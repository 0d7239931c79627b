package org.rdmablock.verbs;

/** Receives asynchronous events of a device context; runs on a provider thread and must not block. */
@FunctionalInterface
public interface AsyncEventHandler {
    void onEvent(AsyncEvent event);
}

package org.rdmablock.initiator;

/**
 * {@link InitiatorTest} again with the channels' threads sleeping on their completion event channels
 * ({@link InitiatorConfig.Waiting#EVENTS}) instead of polling: every test must pass the same way, the target that
 * goes away included (the disconnect wakes the sleeping thread).
 */
class EventWaitingTest extends InitiatorTest {
    @Override
    InitiatorConfig config(final long initiatorId) {
        return super.config(initiatorId).withWaiting(InitiatorConfig.Waiting.EVENTS);
    }
}
